#pragma once
// The chat: the user's messages shown exactly as typed (with their images as thumbnails),
// answers rendered as Markdown while they stream (safely: transcript_document.h), a stats line
// and a Copy link under each answer, a Copy code link under each code block, and the input box
// (Enter sends, Shift+Enter adds a line). Send, Stop, Regenerate,
// Edit-and-resend and New chat are QActions with shortcuts (Ctrl+Return, Esc, Ctrl+R,
// Ctrl+E, Ctrl+N) so the window can also put them in its menus.
// The view keeps its own transcript and asks for work through signals. GUI thread only.
#include <QImage>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <algorithm>
#include <vector>

#include "core/engine/events.h"

class QAction;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QTextBrowser;
class QTextCursor;
class QTimer;
class QUrl;

namespace glance::ui {

class AttachmentStrip;
class ContextMeter;
class SafeTextBrowser;

class ChatView : public QWidget {
  Q_OBJECT
 public:
  explicit ChatView(QWidget* parent = nullptr);

  // Streaming an answer.
  void beginAnswer();
  void appendPiece(const QString& piece);
  void finishAnswer(const TurnStats& stats, const QString& stop_reason);
  void failAnswer(const QString& message);
  void setBusy(bool busy);
  bool isBusy() const { return busy_; }
  // A conversation the engine cannot continue (e.g. its images are gone): Send, Regenerate
  // and Edit are disabled and `reason` shows under the input; what the user types stays.
  void setReadOnly(bool on, const QString& reason = QString());
  bool isReadOnly() const { return readOnly_; }
  // Busy with a long step (image encoding, prompt processing): a label under the input with
  // its progress, Stop enabled. An empty `what` hides it.
  void setProgress(const QString& what, double fraction);
  void clear();

  // Shows a saved question (with its images' thumbnails) and answer (no signals: nothing is
  // asked of the engine).
  void addExchange(const QString& user, const QString& answer, const TurnStats& stats,
                   const QString& stop_reason, const std::vector<QImage>& images = {});
  // The thumbnails shown in the last user message's bubble.
  void setLastUserImages(const std::vector<QImage>& images);

  // Programmatic sending (e.g. "Describe this image." after a drop): as if typed.
  void submit(const QString& text);

  int messageCount() const { return static_cast<int>(messages_.size()); }
  QString lastAnswer() const;
  QString lastUserMessage() const;
  QString transcriptMarkdown() const;
  QPlainTextEdit* input() const { return input_; }
  QTextBrowser* transcript() const;
  // The images attached to the next message, above the message box (the window fills it).
  AttachmentStrip* attachments() const { return attachments_; }
  // The context meter beside the buttons (the window fills it: context_meter.h).
  ContextMeter* contextMeter() const { return contextMeter_; }
  // The link the transcript would follow for `url` (Copy, Copy code, a thumbnail, a web link).
  void activateLink(const QUrl& url);

  QAction* sendAction() const { return send_; }
  QAction* stopAction() const { return stop_; }
  QAction* regenerateAction() const { return regenerate_; }
  QAction* editAction() const { return edit_; }
  QAction* newChatAction() const { return newChat_; }
  QAction* copyAnswerAction() const { return copyAnswer_; }

 Q_SIGNALS:
  void sendRequested(const QString& text);
  void stopRequested();
  void regenerateRequested();
  void editResendRequested(const QString& text);
  void newChatRequested();
  // Ctrl+V in the message box with an image (or image files) on the clipboard: the text box
  // does not take it, the window attaches it.
  void imagePasteRequested();
  // A thumbnail in the transcript was clicked: image `image` (0-based) of the `userMessage`-th
  // user message (0-based: the conversation's turn, or the one being sent).
  void imageClicked(int userMessage, int image);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  struct Message {
    bool user = false;
    QString text;
    QString stats;  // the line under an answer
    bool streaming = false;
    std::vector<QImage> images;  // a user message's images, as thumbnails
    QStringList code;            // an answer's code blocks (filled when rendered)
  };

  void onSend();
  void onRegenerate();
  void onEdit();
  void onNewChat();
  void scheduleRender();
  void render();
  void renderMessage(QTextCursor& cursor, size_t index);
  void markDirty(size_t index) { dirtyFrom_ = std::min(dirtyFrom_, index); }
  void flash(const QString& text);  // a short note where the hint goes
  void updateActions();
  int lastIndex(bool user) const;

  std::vector<Message> messages_;
  ContextMeter* contextMeter_ = nullptr;
  bool busy_ = false;
  bool editing_ = false;
  bool readOnly_ = false;
  QString readOnlyReason_;  // the input holds the last user message for Edit-and-resend
  // What the transcript shows: messages before dirtyFrom_ are rendered and unchanged, each
  // starting at its starts_ position in the document; render() redoes the rest (a streamed
  // piece redraws only the answer it belongs to).
  size_t dirtyFrom_ = 0;
  std::vector<int> starts_;
  bool flashing_ = false;
  SafeTextBrowser* transcript_ = nullptr;
  AttachmentStrip* attachments_ = nullptr;
  QPlainTextEdit* input_ = nullptr;
  QLabel* hint_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QTimer* renderTimer_ = nullptr;
  QAction* send_ = nullptr;
  QAction* stop_ = nullptr;
  QAction* regenerate_ = nullptr;
  QAction* edit_ = nullptr;
  QAction* newChat_ = nullptr;
  QAction* copyAnswer_ = nullptr;
};

}  // namespace glance::ui
