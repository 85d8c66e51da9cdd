#include "ui/chat_view.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDesktopServices>
#include <QFileInfo>
#include <QImageReader>
#include <QMimeData>
#include <QProgressBar>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTextFrame>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "ui/attachment_strip.h"
#include "ui/context_meter.h"
#include "ui/event_types.h"
#include "ui/safe_text_browser.h"
#include "ui/stats_format.h"
#include "ui/transcript_document.h"

namespace glance::ui {
namespace {

QAction* MakeAction(QWidget* owner, const QString& text, const QKeySequence& key,
                    const QString& tip) {
  auto* action = new QAction(text, owner);
  action->setShortcut(key);
  action->setShortcutContext(Qt::WindowShortcut);
  action->setToolTip(QStringLiteral("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
  owner->addAction(action);
  return action;
}

QToolButton* ButtonFor(QAction* action, QWidget* parent) {
  auto* b = new QToolButton(parent);
  b->setDefaultAction(action);
  b->setToolButtonStyle(Qt::ToolButtonTextOnly);
  return b;
}

// True when the clipboard holds something to attach rather than text to type: image data,
// or local files that are all images (a file manager's "Copy").
bool ClipboardHasImage() {
  const QMimeData* mime = QApplication::clipboard()->mimeData();
  if (mime == nullptr) return false;
  if (mime->hasImage()) return true;
  if (!mime->hasUrls() || mime->urls().isEmpty()) return false;
  for (const QUrl& url : mime->urls())
    if (!url.isLocalFile() || QImageReader::imageFormat(url.toLocalFile()).isEmpty()) return false;
  return true;
}

}  // namespace

ChatView::ChatView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  transcript_ = new SafeTextBrowser(this);
  transcript_->document()->setUndoRedoEnabled(false);
  transcript_->setAccessibleName(tr("Conversation"));
  connect(transcript_, &QTextBrowser::anchorClicked, this, &ChatView::activateLink);
  transcript_->setPlaceholderText(tr("Drop an image and Glance describes it. Ask follow-up "
                                     "questions below."));
  layout->addWidget(transcript_, 1);

  input_ = new QPlainTextEdit(this);
  input_->setPlaceholderText(tr("Ask about the image\u2026 (Enter sends, Shift+Enter: new line)"));
  input_->setMaximumHeight(fontMetrics().height() * 6);
  input_->setTabChangesFocus(true);
  input_->installEventFilter(this);
  attachments_ = new AttachmentStrip(this);
  layout->addWidget(attachments_);
  layout->addWidget(input_);

  send_ = MakeAction(this, tr("&Send"), QKeySequence(Qt::CTRL | Qt::Key_Return), tr("Send"));
  stop_ = MakeAction(this, tr("S&top"), QKeySequence(Qt::Key_Escape), tr("Stop generating"));
  regenerate_ = MakeAction(this, tr("&Regenerate"), QKeySequence(Qt::CTRL | Qt::Key_R),
                           tr("Answer the last message again"));
  edit_ = MakeAction(this, tr("&Edit last"), QKeySequence(Qt::CTRL | Qt::Key_E),
                     tr("Edit the last message and send it again"));
  newChat_ = MakeAction(this, tr("&New chat"), QKeySequence(Qt::CTRL | Qt::Key_N),
                        tr("Start a new conversation"));
  copyAnswer_ = MakeAction(this, tr("Cop&y last answer"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C),
                           tr("Copy the last answer as Markdown"));
  previousAnswer_ = MakeAction(this, tr("&Previous answer"), QKeySequence(Qt::ALT | Qt::Key_Left),
                               tr("Show the last message's previous answer (Regenerate keeps them)"));
  nextAnswer_ = MakeAction(this, tr("Ne&xt answer"), QKeySequence(Qt::ALT | Qt::Key_Right),
                           tr("Show the last message's next answer"));
  auto* buttons = new QHBoxLayout;
  hint_ = new QLabel(this);
  hint_->setForegroundRole(QPalette::PlaceholderText);
  hint_->setWordWrap(true);  // a long reason wraps rather than widening the window
  hint_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  buttons->addWidget(hint_, 1);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  progress_->setTextVisible(true);
  progress_->setVisible(false);
  // It takes the room the hint leaves (stretch), never a minimum width: a minimum set from its
  // text widened the chat and narrowed the Conversations dock for good (issue 34).
  progress_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  buttons->addWidget(progress_, 1);
  contextMeter_ = new ContextMeter(this);
  buttons->addWidget(contextMeter_);
  // New chat is the sidebar's first button (and Ctrl+N): not repeated here, so the chat's
  // narrowest width leaves the docks their room on a small window.
  for (QAction* a : {edit_, regenerate_, stop_, send_}) buttons->addWidget(ButtonFor(a, this));
  layout->addLayout(buttons);

  renderTimer_ = new QTimer(this);
  renderTimer_->setSingleShot(true);
  renderTimer_->setInterval(30);  // coalesce streamed pieces into ~30 renders per second
  connect(renderTimer_, &QTimer::timeout, this, &ChatView::render);
  connect(send_, &QAction::triggered, this, &ChatView::onSend);
  connect(stop_, &QAction::triggered, this, &ChatView::stopRequested);
  connect(regenerate_, &QAction::triggered, this, &ChatView::onRegenerate);
  connect(edit_, &QAction::triggered, this, &ChatView::onEdit);
  connect(newChat_, &QAction::triggered, this, &ChatView::onNewChat);
  connect(previousAnswer_, &QAction::triggered, this, [this] { stepAlternative(-1); });
  connect(nextAnswer_, &QAction::triggered, this, [this] { stepAlternative(+1); });
  connect(copyAnswer_, &QAction::triggered, this, [this] {
    const int i = lastIndex(false);
    if (i >= 0) activateLink(CopyAnswerUrl(i));
  });
  updateActions();
}

bool ChatView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == input_ && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    const bool enter = key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter;
    if (enter && !(key->modifiers() & Qt::ShiftModifier)) {
      onSend();
      return true;
    }
    if (key->matches(QKeySequence::Paste) && ClipboardHasImage()) {
      Q_EMIT imagePasteRequested();
      return true;
    }
    if (key->key() == Qt::Key_Escape && editing_ && !busy_) {  // cancel an edit
      editing_ = false;
      editTurn_ = -1;
      input_->clear();
      updateActions();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

void ChatView::submit(const QString& text) {
  input_->setPlainText(text);
  onSend();
}

void ChatView::addExchange(const QString& user, const QString& answer, const TurnStats& stats,
                           const QString& stop_reason, const std::vector<QImage>& images, int chosen,
                           int alternatives) {
  const int previous = lastIndex(false);
  if (previous >= 0) markDirty(static_cast<size_t>(previous));  // no longer the last: no ◀ ▶
  markDirty(messages_.size());
  messages_.push_back({true, user, {}, false, images, {}});
  messages_.push_back({false, answer, {}, true, {}, {}, chosen, alternatives});
  finishAnswer(stats, stop_reason);
  updateActions();
}

void ChatView::setLastAnswerAlternatives(int chosen, int alternatives) {
  const int i = lastIndex(false);
  if (i < 0) return;
  messages_[static_cast<size_t>(i)].alt = chosen;
  messages_[static_cast<size_t>(i)].alts = alternatives;
  markDirty(static_cast<size_t>(i));
  render();
  updateActions();
}

void ChatView::showLastAnswer(const QString& text, const TurnStats& stats, const QString& stop_reason, int chosen,
                              int alternatives) {
  const int i = lastIndex(false);
  if (i < 0) return;
  Message& m = messages_[static_cast<size_t>(i)];
  m.text = text;
  m.alt = chosen;
  m.alts = alternatives;
  m.streaming = true;  // finishAnswer writes its stats line
  messages_.resize(static_cast<size_t>(i) + 1);
  finishAnswer(stats, stop_reason);
  updateActions();
}

int ChatView::lastAnswerAlternative() const {
  const int i = lastIndex(false);
  return i < 0 ? 0 : messages_[static_cast<size_t>(i)].alt;
}

int ChatView::lastAnswerAlternatives() const {
  const int i = lastIndex(false);
  return i < 0 ? 0 : messages_[static_cast<size_t>(i)].alts;
}

void ChatView::stepAlternative(int delta) {
  const int i = lastIndex(false);
  if (busy_ || i < 0 || i < lastIndex(true)) return;
  const Message& m = messages_[static_cast<size_t>(i)];
  const int k = m.alt + delta;
  if (m.alts < 2 || k < 0 || k >= m.alts) return;
  Q_EMIT alternativeRequested(k);
}

int ChatView::turnOf(size_t message) const {
  int turn = -1;
  for (size_t i = 0; i <= message && i < messages_.size(); ++i) turn += messages_[i].user ? 1 : 0;
  return turn;
}

int ChatView::userIndex(int turn) const {
  int seen = -1;
  for (size_t i = 0; i < messages_.size(); ++i)
    if (messages_[i].user && ++seen == turn) return static_cast<int>(i);
  return -1;
}

bool ChatView::handleChatLink(const QUrl& url) {
  if (url.scheme().toLower() != QStringLiteral("glance")) return false;
  const QStringList parts = url.path().split(QLatin1Char('/'));
  const QString& what = parts.value(0);
  if (what != QStringLiteral("alt") && what != QStringLiteral("edit") && what != QStringLiteral("fork") &&
      what != QStringLiteral("maps"))
    return false;
  bool ok = false;
  const int message = parts.value(1).toInt(&ok);
  if (!ok || message < 0 || static_cast<size_t>(message) >= messages_.size()) return true;
  if (what == QStringLiteral("maps") && !busy_) {  // viewing: read-only chats too
    if (!messages_[static_cast<size_t>(message)].user) Q_EMIT answerMapsRequested(turnOf(static_cast<size_t>(message)));
    return true;
  }
  if (busy_) {
    flash(tr("Wait for the answer (or Stop it) first."));
    return true;
  }
  if (what == QStringLiteral("alt")) {
    bool okIndex = false;
    const int k = parts.value(2).toInt(&okIndex);
    const Message& m = messages_[static_cast<size_t>(message)];
    if (okIndex && message == lastIndex(false) && message > lastIndex(true) && k >= 0 && k < m.alts && k != m.alt)
      Q_EMIT alternativeRequested(k);
  } else if (readOnly_) {
    flash(readOnlyReason_);
  } else if (what == QStringLiteral("edit")) {
    if (messages_[static_cast<size_t>(message)].user) startEdit(turnOf(static_cast<size_t>(message)));
  } else {
    Q_EMIT forkRequested(turnOf(static_cast<size_t>(message)));
  }
  return true;
}

void ChatView::setLastUserImages(const std::vector<QImage>& images) {
  const int i = lastIndex(true);
  if (i < 0) return;
  messages_[static_cast<size_t>(i)].images = images;
  markDirty(static_cast<size_t>(i));
  scheduleRender();
}

QTextBrowser* ChatView::transcript() const { return transcript_; }

void ChatView::activateLink(const QUrl& url) {
  if (handleChatLink(url)) return;
  const TranscriptLink link = ParseTranscriptLink(url);
  const auto message = static_cast<size_t>(link.message);
  switch (link.kind) {
    case TranscriptLink::kCopyCode:
      if (message < messages_.size() && link.index < messages_[message].code.size()) {
        QApplication::clipboard()->setText(messages_[message].code[link.index]);
        flash(tr("Code copied."));
      }
      break;
    case TranscriptLink::kCopyAnswer:
      if (message < messages_.size()) {
        QApplication::clipboard()->setText(messages_[message].text);
        flash(tr("Answer copied."));
      }
      break;
    case TranscriptLink::kImage:
      if (message < messages_.size() && messages_[message].user) {
        int ordinal = 0;  // which user message: the turn it belongs to
        for (size_t i = 0; i < message; ++i) ordinal += messages_[i].user ? 1 : 0;
        Q_EMIT imageClicked(ordinal, link.index);
      }
      break;
    case TranscriptLink::kExternal:
      QDesktopServices::openUrl(url);  // a web link, on the user's click only
      break;
    case TranscriptLink::kNone:
      flash(tr("Links to files are not opened: %1").arg(url.toDisplayString()));
      break;
  }
}

void ChatView::flash(const QString& text) {
  flashing_ = true;
  hint_->setText(text);
  QTimer::singleShot(2500, this, [this] {
    flashing_ = false;
    updateActions();
  });
}

void ChatView::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
    markDirty(0);  // bubbles and code blocks take their colours from the palette
    scheduleRender();
  }
  QWidget::changeEvent(event);
}

void ChatView::onSend() {
  const QString text = input_->toPlainText().trimmed();
  if (busy_ || readOnly_ || text.isEmpty()) return;  // the text stays in the box
  input_->clear();
  if (editing_) {
    editing_ = false;
    const int turn = editTurn_;
    editTurn_ = -1;
    if (turn >= 0 && turn < turnOf(messages_.size() - 1)) {  // an earlier message: the window decides
      updateActions();
      Q_EMIT editMessageRequested(turn, text);
      return;
    }
    resendLastEdited(text);
    return;
  }
  const int previous = lastIndex(false);
  if (previous >= 0) markDirty(static_cast<size_t>(previous));  // no longer the last: no ◀ ▶
  markDirty(messages_.size());
  messages_.push_back({true, text, {}, false, {}, {}});
  scheduleRender();
  Q_EMIT sendRequested(text);
}

void ChatView::resendLastEdited(const QString& text) {
  editing_ = false;
  editTurn_ = -1;
  const int user = lastIndex(true);
  if (user >= 0) {
    messages_.resize(static_cast<size_t>(user) + 1);  // drop the old answer
    messages_.back().text = text;
    markDirty(static_cast<size_t>(user));
  }
  scheduleRender();
  Q_EMIT editResendRequested(text);
}

void ChatView::onRegenerate() {
  if (busy_ || readOnly_ || lastIndex(true) < 0) return;
  messages_.resize(static_cast<size_t>(lastIndex(true)) + 1);
  markDirty(messages_.size());
  scheduleRender();
  Q_EMIT regenerateRequested();
}

void ChatView::onEdit() {
  if (lastIndex(true) >= 0) startEdit(turnOf(static_cast<size_t>(lastIndex(true))));
}

void ChatView::startEdit(int turn) {
  const int index = userIndex(turn);
  if (busy_ || readOnly_ || index < 0) return;
  editing_ = true;
  editTurn_ = turn;
  input_->setPlainText(messages_[static_cast<size_t>(index)].text);
  input_->setFocus();
  input_->moveCursor(QTextCursor::End);
  updateActions();
}

void ChatView::onNewChat() {
  if (busy_) return;
  clear();
  Q_EMIT newChatRequested();
}

void ChatView::beginAnswer() {
  markDirty(messages_.size());
  messages_.push_back({false, {}, {}, true, {}, {}});
  scheduleRender();
}

void ChatView::appendPiece(const QString& piece) {
  // The answer has begun: "Reading the prompt: 62 of 62" no longer describes anything.
  if (!progress_->isHidden()) setProgress(QString(), 0.0);
  if (messages_.empty() || messages_.back().user) beginAnswer();
  messages_.back().text += piece;
  markDirty(messages_.size() - 1);
  scheduleRender();
}

void ChatView::finishAnswer(const TurnStats& stats, const QString& stop_reason) {
  if (messages_.empty() || messages_.back().user) beginAnswer();
  Message& m = messages_.back();
  markDirty(messages_.size() - 1);
  m.streaming = false;
  m.stats = DescribeStats(stats);
  if (stop_reason == QStringLiteral("cancelled")) m.stats += tr(" \u00B7 stopped");
  if (stop_reason == QStringLiteral("max_tokens")) m.stats += tr(" \u00B7 length limit");
  if (stop_reason == QStringLiteral("context")) m.stats += tr(" \u00B7 context full");
  if (stop_reason == QStringLiteral("stop")) m.stats += tr(" \u00B7 stop sequence");
  if (const double reread = ReReadSeconds(stats); reread > 0.0)
    m.stats += tr(" \u00B7 re-read the chat first in %1").arg(FormatDuration(reread));
  render();
}

void ChatView::failAnswer(const QString& message) {
  if (!messages_.empty() && !messages_.back().user && messages_.back().streaming) {
    messages_.back().streaming = false;
    messages_.back().stats = tr("error: %1").arg(message);
    markDirty(messages_.size() - 1);
  }
  render();
}

void ChatView::setBusy(bool busy) {
  busy_ = busy;
  if (!busy) setProgress(QString(), 0.0);
  updateActions();
}

void ChatView::setReadOnly(bool on, const QString& reason) {
  readOnly_ = on;
  readOnlyReason_ = on ? reason : QString();
  if (on) editing_ = false;
  updateActions();
}

void ChatView::setProgress(const QString& what, double fraction) {
  progress_->setVisible(!what.isEmpty());
  hint_->setVisible(what.isEmpty());  // the bar takes the hint's room
  progress_->setFormat(what);
  progress_->setToolTip(what);
  progress_->setValue(static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 1000.0));
}

void ChatView::clear() {
  messages_.clear();
  markDirty(0);
  editing_ = false;
  editTurn_ = -1;
  render();
  updateActions();
}

QString ChatView::lastAnswer() const {
  const int i = lastIndex(false);
  return i < 0 ? QString() : messages_[static_cast<size_t>(i)].text;
}

QString ChatView::lastAnswerStats() const {
  const int i = lastIndex(false);
  return i < 0 ? QString() : messages_[static_cast<size_t>(i)].stats;
}

QString ChatView::lastUserMessage() const {
  const int i = lastIndex(true);
  return i < 0 ? QString() : messages_[static_cast<size_t>(i)].text;
}

int ChatView::lastIndex(bool user) const {
  for (int i = messageCount() - 1; i >= 0; --i)
    if (messages_[static_cast<size_t>(i)].user == user) return i;
  return -1;
}

QString ChatView::transcriptMarkdown() const {
  QString md;
  for (const Message& m : messages_) {
    md += m.user ? tr("**You**") : tr("**Glance**");
    md += QStringLiteral("\n\n");
    if (m.text.isEmpty() && m.streaming)
      md += QStringLiteral("\u2026");
    else if (!m.user && !m.streaming && m.text.trimmed().isEmpty())
      md += tr("*(no visible text: the answer was only spaces, line breaks or special tokens)*");  // not a blank
    else
      md += m.text;
    md += QStringLiteral("\n\n");
    if (!m.stats.isEmpty()) md += QStringLiteral("*%1*\n\n").arg(m.stats);
    md += QStringLiteral("---\n\n");
  }
  return md;
}

void ChatView::scheduleRender() {
  if (!renderTimer_->isActive()) renderTimer_->start();
  updateActions();
}

void ChatView::render() {
  renderTimer_->stop();
  QScrollBar* bar = transcript_->verticalScrollBar();
  const bool atBottom = bar->value() >= bar->maximum() - 4;
  QTextDocument* doc = transcript_->document();
  const size_t from = std::min(dirtyFrom_, starts_.size());
  if (from == 0) {
    doc->clear();  // also forgets the thumbnails registered as resources
    starts_.clear();
  }
  QTextCursor cursor(doc);
  cursor.beginEditBlock();
  if (from < starts_.size()) {
    cursor.setPosition(starts_[from]);
    cursor.movePosition(QTextCursor::End, QTextCursor::KeepAnchor);
    cursor.removeSelectedText();
  } else {
    cursor.movePosition(QTextCursor::End);
  }
  starts_.resize(from);
  for (size_t i = from; i < messages_.size(); ++i) {
    starts_.push_back(cursor.position());
    renderMessage(cursor, i);
  }
  cursor.endEditBlock();
  dirtyFrom_ = messages_.size();
  if (atBottom) bar->setValue(bar->maximum());
}

void ChatView::renderMessage(QTextCursor& cursor, size_t index) {
  Message& m = messages_[index];
  const QPalette& pal = palette();
  // A link to one of the chat's own actions (alt/edit/fork: handleChatLink).
  const auto ActionLink = [&pal](const QString& path, const QString& tip) {
    QUrl url;
    url.setScheme(QStringLiteral("glance"));
    url.setPath(path);
    QTextCharFormat link;
    link.setAnchor(true);
    link.setAnchorHref(url.toString());
    link.setForeground(pal.color(QPalette::Link));
    link.setFontUnderline(true);
    link.setToolTip(tip);
    return link;
  };
  const int em = fontMetrics().height();
  QTextCharFormat plain;
  plain.setForeground(pal.color(QPalette::Text));
  QTextCharFormat header = plain;
  header.setFontWeight(QFont::Bold);
  QTextCharFormat note;
  note.setForeground(pal.color(QPalette::PlaceholderText));
  note.setFontItalic(true);
  if (m.user) {
    // A bubble: the user's words on a tinted background, as typed.
    QTextFrameFormat bubble;
    const QColor base = pal.color(QPalette::Base), accent = pal.color(QPalette::Highlight);
    bubble.setBackground(MixColors(base, accent, 0.12f));
    bubble.setBorder(1);
    bubble.setBorderBrush(pal.color(QPalette::Mid));
    bubble.setPadding(em / 2);
    bubble.setTopMargin(em / 3);
    bubble.setBottomMargin(em / 3);
    bubble.setLeftMargin(em * 2);
    cursor.insertFrame(bubble);
    cursor.insertText(tr("You"), header);
    if (!m.images.empty()) {
      cursor.insertBlock(QTextBlockFormat(), plain);
      InsertThumbnails(cursor, m.images, static_cast<int>(index), em * 5);
    }
    cursor.insertBlock(QTextBlockFormat(), plain);
    InsertPlainText(cursor, m.text, plain);
    cursor.insertBlock(QTextBlockFormat(), note);
    cursor.insertText(tr("Edit"), ActionLink(QStringLiteral("edit/%1").arg(index),
                                             tr("Edit this message and send it again")));
    cursor.movePosition(QTextCursor::End);  // out of the bubble
  } else {
    cursor.insertText(tr("Glance"), header);
    cursor.insertBlock(QTextBlockFormat(), plain);
    m.code.clear();
    if (m.text.isEmpty() && m.streaming)
      cursor.insertText(QStringLiteral("\u2026"), plain);
    else if (!m.streaming && m.text.trimmed().isEmpty())  // not a blank
      cursor.insertText(tr("(no visible text: the answer was only spaces, line breaks or special tokens)"), note);
    else
      m.code = InsertAnswerMarkdown(cursor, m.text, static_cast<int>(index), pal);
    cursor.movePosition(QTextCursor::End);
    if (!m.stats.isEmpty() || !m.streaming) {
      cursor.insertBlock(QTextBlockFormat(), note);
      cursor.insertText(m.stats, note);
      if (!m.streaming) {
        QTextCharFormat link;
        link.setAnchor(true);
        link.setAnchorHref(CopyAnswerUrl(static_cast<int>(index)).toString());
        link.setForeground(pal.color(QPalette::Link));
        link.setFontUnderline(true);
        link.setToolTip(tr("Copy this answer (Markdown)"));
        if (!m.stats.isEmpty()) cursor.insertText(QStringLiteral("   "), note);
        cursor.insertText(tr("Copy"), link);
        cursor.insertText(QStringLiteral("   "), note);
        cursor.insertText(tr("Fork"), ActionLink(QStringLiteral("fork/%1").arg(index),
                                                 tr("Fork: a new chat with the messages up to this answer")));
        // An earlier answer's maps were out of reach once a later one replaced them (issue 34).
        cursor.insertText(QStringLiteral("   "), note);
        cursor.insertText(tr("Attention"), ActionLink(QStringLiteral("maps/%1").arg(index),
                                                      tr("Show where this answer looked in its image")));
        if (m.alts > 1) {
          const bool last = static_cast<int>(index) == lastIndex(false) && static_cast<int>(index) > lastIndex(true);
          cursor.insertText(QStringLiteral("   "), note);
          if (last && m.alt > 0)
            cursor.insertText(QStringLiteral("\u25C0"), ActionLink(QStringLiteral("alt/%1/%2").arg(index).arg(m.alt - 1),
                                                                  tr("Previous answer (%1 of %2)").arg(m.alt).arg(m.alts)));
          else if (last)
            cursor.insertText(QStringLiteral("\u25C1"), note);  // no earlier one
          cursor.insertText(last ? QStringLiteral(" %1/%2 ").arg(m.alt + 1).arg(m.alts)
                                 : tr("answer %1 of %2").arg(m.alt + 1).arg(m.alts),
                            note);
          if (last && m.alt + 1 < m.alts)
            cursor.insertText(QStringLiteral("\u25B6"), ActionLink(QStringLiteral("alt/%1/%2").arg(index).arg(m.alt + 1),
                                                                  tr("Next answer (%1 of %2)").arg(m.alt + 2).arg(m.alts)));
          else if (last)
            cursor.insertText(QStringLiteral("\u25B7"), note);  // no later one
        }
      }
    }
  }
  cursor.insertBlock(QTextBlockFormat(), plain);
}

void ChatView::updateActions() {
  const bool hasUser = lastIndex(true) >= 0;
  send_->setEnabled(!busy_ && !readOnly_);
  stop_->setEnabled(busy_);
  regenerate_->setEnabled(!busy_ && !readOnly_ && hasUser);
  edit_->setEnabled(!busy_ && !readOnly_ && hasUser);
  newChat_->setEnabled(!busy_);
  copyAnswer_->setEnabled(lastIndex(false) >= 0);
  const int answer = lastIndex(false);
  const bool switchable = !busy_ && answer >= 0 && answer > lastIndex(true) &&
                          messages_[static_cast<size_t>(answer)].alts > 1;
  previousAnswer_->setEnabled(switchable && messages_[static_cast<size_t>(answer)].alt > 0);
  nextAnswer_->setEnabled(switchable &&
                          messages_[static_cast<size_t>(answer)].alt + 1 < messages_[static_cast<size_t>(answer)].alts);
  if (flashing_) return;
  const int lastTurn = lastIndex(true) < 0 ? -1 : turnOf(static_cast<size_t>(lastIndex(true)));
  if (editing_ && editTurn_ >= 0 && editTurn_ < lastTurn) {
    hint_->setText(tr("Editing message %1 \u2014 Enter resends it, Esc cancels").arg(editTurn_ + 1));
    return;
  }
  hint_->setText(editing_    ? tr("Editing the last message \u2014 Enter resends, Esc cancels")
                 : readOnly_ ? readOnlyReason_
                             : QString());
}

}  // namespace glance::ui
