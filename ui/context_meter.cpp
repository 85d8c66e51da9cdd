#include "ui/context_meter.h"

#include <QApplication>
#include <QEvent>
#include <QLocale>
#include <QPainter>
#include <algorithm>
#include <cmath>

namespace glance::ui {

namespace {

// <|im_start|>user\n … <|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n, and the
// previous answer's <|im_end|>\n the next turn appends (chat_template.jinja): 15 tokens with
// Qwen3.5's tokenizer; one more to stay on the safe side.
constexpr int kTurnFramingTokens = 16;
constexpr int kBytesPerToken = 3;

QString Count(int n) { return QLocale().toString(n); }

// 65,536 -> "64k", 262,144 -> "256k" (context lengths are powers of two); below 10,000 as is.
QString ShortCount(int n) {
  if (n < 10000) return Count(n);
  return QLocale().toString(static_cast<int>(std::lround(n / 1024.0))) + QStringLiteral("k");
}

QColor LevelColour(ContextUsage::Level level, const QPalette& palette) {
  switch (level) {
    case ContextUsage::Level::kWillNotFit: return QColor(0xd3, 0x2f, 0x2f);
    case ContextUsage::Level::kAnswerMayBeCut: return QColor(0xe0, 0x8e, 0x0b);
    case ContextUsage::Level::kFine: break;
  }
  return palette.color(QPalette::Highlight);
}

}  // namespace

int ImageContextTokens(int grid_tokens) { return grid_tokens + 2; }

int ContextUsage::next_message_tokens() const {
  const int text = (text_bytes + kBytesPerToken - 1) / kBytesPerToken;
  return image_tokens + text + kTurnFramingTokens;
}

ContextUsage::Level ContextUsage::level() const {
  if (limit <= 0) return Level::kFine;
  // Session refuses a turn whose prompt reaches the limit (session.cpp), and an answer stops
  // when the cache is one token short of it.
  if (after_next_message() >= limit) return Level::kWillNotFit;
  if (after_next_message() + answer_tokens >= limit) return Level::kAnswerMayBeCut;
  return Level::kFine;
}

ContextMeter::ContextMeter(QWidget* parent) : QLabel(parent) {
  setAccessibleName(tr("Context used"));
  setContentsMargins(4, 0, 4, 3);  // room for the bar under the text
  setUsage({});
}

void ContextMeter::setUsage(const ContextUsage& usage) {
  usage_ = usage;
  if (usage.limit <= 0) {
    setText(QString());
    setVisible(false);
    return;
  }
  setVisible(true);
  const int pending = usage.image_tokens + usage.text_bytes > 0 ? usage.next_message_tokens() : 0;
  const QString used = usage.estimated ? QStringLiteral("\u2248") + Count(usage.used) : Count(usage.used);
  setText(pending > 0 ? tr("%1 + \u2248%2 / %3 tokens").arg(used, Count(pending), Count(usage.limit))
                      : tr("%1 / %2 tokens").arg(used, Count(usage.limit)));
  const QString usedShort = (usage.estimated ? QStringLiteral("\u2248") : QString()) + ShortCount(usage.used);
  shortText_ = pending > 0 ? QStringLiteral("%1 + \u2248%2 / %3").arg(usedShort, ShortCount(pending), ShortCount(usage.limit))
                           : QStringLiteral("%1 / %2").arg(usedShort, ShortCount(usage.limit));
  const QString why = explanation();
  setToolTip(why);
  setAccessibleDescription(why);
  applyTextColour();
  update();
}

void ContextMeter::applyTextColour() {
  // Only the text's role is set, from the application's palette: a copy of the whole palette
  // kept the light theme's grey text on the dark theme's background after a theme change.
  const QPalette app = QApplication::palette(this);
  const QColor colour = usage_.level() == ContextUsage::Level::kFine ? app.color(QPalette::PlaceholderText)
                                                                      : LevelColour(usage_.level(), app);
  if (testAttribute(Qt::WA_SetPalette) && palette().color(QPalette::WindowText) == colour) return;  // no PaletteChange loop
  QPalette p;
  p.setColor(QPalette::WindowText, colour);
  setPalette(p);
}

void ContextMeter::changeEvent(QEvent* event) {
  QLabel::changeEvent(event);
  if (event->type() == QEvent::ApplicationPaletteChange || event->type() == QEvent::PaletteChange) applyTextColour();
}

QString ContextMeter::explanation() const {
  const ContextUsage& u = usage_;
  if (u.limit <= 0) return {};
  QString text = u.estimated
                     ? tr("The conversation holds about %1 of the model's %2 tokens of context, the "
                          "answer being written included.").arg(Count(u.used), Count(u.limit))
                     : tr("The conversation holds %1 of the model's %2 tokens of context.").arg(Count(u.used), Count(u.limit));
  if (u.image_tokens + u.text_bytes > 0)
    text += QLatin1Char(' ') + tr("The next message adds about %1 (%2 of them for its images).")
                                   .arg(Count(u.next_message_tokens()), Count(u.image_tokens));
  switch (u.level()) {
    case ContextUsage::Level::kWillNotFit:
      text += QLatin1Char(' ') +
              tr("It would not fit: Glance will refuse to send it and the conversation stays as it is. "
                 "Remove an image, shorten the message or start a New chat.");
      break;
    case ContextUsage::Level::kAnswerMayBeCut:
      text += QLatin1Char(' ') +
              tr("It leaves room for about %1 answer tokens: the answer stops there (marked "
                 "\u201C" "context full\u201D under it). A New chat has the whole context.")
                  .arg(Count(std::max(0, u.limit - 1 - u.after_next_message())));
      break;
    case ContextUsage::Level::kFine: break;
  }
  return text;
}

QString ContextMeter::shortText() const { return shortText_; }

QString ContextMeter::shownText() const {
  const int room = contentsRect().width();
  if (fontMetrics().horizontalAdvance(text()) <= room) return text();
  return fontMetrics().elidedText(shortText_, Qt::ElideRight, room);
}

QSize ContextMeter::minimumSizeHint() const {
  return {fontMetrics().height() * 4, QLabel::minimumSizeHint().height()};
}

void ContextMeter::paintEvent(QPaintEvent* event) {
  const QString drawn = shownText();
  if (drawn == text()) {
    QLabel::paintEvent(event);
  } else {  // narrower than its text: "106 / 64k", and cut only when even that does not fit
    QPainter text(this);
    text.setPen(palette().color(QPalette::WindowText));
    text.drawText(contentsRect(), static_cast<int>(alignment()), drawn);
  }
  if (usage_.limit <= 0) return;
  QPainter painter(this);
  const QRect bar(4, height() - 3, width() - 8, 2);
  painter.fillRect(bar, palette().color(QPalette::Mid));
  const double shown = std::min(1.0, static_cast<double>(usage_.after_next_message()) / usage_.limit);
  const double held = std::min(1.0, static_cast<double>(usage_.used) / usage_.limit);
  const QColor colour = LevelColour(usage_.level(), palette());
  QColor light = colour;
  light.setAlpha(110);
  painter.fillRect(QRect(bar.left(), bar.top(), static_cast<int>(bar.width() * shown), bar.height()), light);
  painter.fillRect(QRect(bar.left(), bar.top(), static_cast<int>(bar.width() * held), bar.height()), colour);
}

}  // namespace glance::ui
