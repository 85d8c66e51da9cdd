#include "ui/notice_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QStyle>
#include <QTimer>
#include <QToolButton>

#include "ui/transcript_document.h"

namespace glance::ui {

NoticeBar::NoticeBar(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("notice"));
  auto* layout = new QHBoxLayout(this);
  const int em = fontMetrics().height();
  layout->setContentsMargins(em / 2, em / 4, em / 4, em / 4);
  label_ = new QLabel(this);
  label_->setWordWrap(true);
  label_->setTextFormat(Qt::PlainText);  // paths and error messages, never markup
  label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  action_ = new QPushButton(this);
  action_->setVisible(false);
  close_ = new QToolButton(this);
  close_->setAutoRaise(true);
  close_->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
  close_->setText(tr("Close"));
  close_->setToolTip(tr("Close this notice"));
  close_->setAccessibleName(tr("Close notice"));
  layout->addWidget(label_, 1);
  layout->addWidget(action_, 0, Qt::AlignVCenter);
  layout->addWidget(close_, 0, Qt::AlignTop);
  timeout_ = new QTimer(this);
  timeout_->setSingleShot(true);
  connect(timeout_, &QTimer::timeout, this, [this] { clear(); });
  connect(close_, &QToolButton::clicked, this, [this] { clear(); });
  connect(action_, &QPushButton::clicked, this, [this] {
    std::function<void()> run = run_;  // clear() forgets it; the action may show a new notice
    clear();
    if (run) run();
  });
  setVisible(false);
}

void NoticeBar::showNotice(const QString& key, const QString& text, Kind kind,
                           const QString& actionText, std::function<void()> action,
                           int timeoutMs) {
  if (text.isEmpty()) {
    clear(key);
    return;
  }
  key_ = key;
  kind_ = kind;
  label_->setText(text);
  label_->setAccessibleName(text);
  run_ = std::move(action);
  action_->setText(actionText);
  action_->setVisible(run_ != nullptr && !actionText.isEmpty());
  if (timeoutMs > 0)
    timeout_->start(timeoutMs);
  else
    timeout_->stop();
  setVisible(true);
  update();
}

void NoticeBar::clear(const QString& key) {
  if (!key.isEmpty() && key != key_) return;
  timeout_->stop();
  run_ = nullptr;
  key_.clear();
  label_->clear();
  setVisible(false);
}

QString NoticeBar::text() const { return isHidden() ? QString() : label_->text(); }

void NoticeBar::paintEvent(QPaintEvent* event) {
  QFrame::paintEvent(event);
  const QColor base = palette().color(QPalette::Base);
  const QColor tint = kind_ == Kind::kError     ? QColor(214, 64, 64)
                      : kind_ == Kind::kWarning ? QColor(222, 160, 40)
                                                : palette().color(QPalette::Highlight);
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(QPen(MixColors(base, tint, 0.6f), 1.0));
  p.setBrush(MixColors(base, tint, 0.16f));
  const qreal r = fontMetrics().height() / 4.0;
  p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), r, r);
}

}  // namespace glance::ui
