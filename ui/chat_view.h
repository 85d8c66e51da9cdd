#pragma once
// The chat: the user's messages shown exactly as typed (with their images as thumbnails),
// answers rendered as Markdown while they stream (safely: transcript_document.h), a stats line
// and Copy and Fork links under each answer (◀ 2/3 ▶ under the last one when Regenerate kept
// earlier answers), an Edit link in each user message, a Copy code link under each code block, and the input box
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
  // `chosen` of `alternatives` (0-based; alternatives < 2: the one answer) is the answer shown.
  void addExchange(const QString& user, const QString& answer, const TurnStats& stats,
                   const QString& stop_reason, const std::vector<QImage>& images = {},
                   int chosen = 0, int alternatives = 0);
  // The last answer is alternative `chosen` of `alternatives` (after a Regenerate).
  void setLastAnswerAlternatives(int chosen, int alternatives);
  // Shows another alternative as the last answer: its text, stats and ◀ k/n ▶.
  void showLastAnswer(const QString& text, const TurnStats& stats, const QString& stop_reason,
                      int chosen, int alternatives);
  // Starts editing user message `turn` (0-based): its text goes in the message box; Enter
  // resends it (editResendRequested for the last message, editMessageRequested for an earlier
  // one), Esc cancels.
  void startEdit(int turn);
  int editingTurn() const { return editing_ ? editTurn_ : -1; }
  // Replaces the last user message with `text`, drops its answer and asks for the edit
  // (editResendRequested), as Enter does while editing the last message.
  void resendLastEdited(const QString& text);
  // Which of its alternatives the last answer shows (0-based) and how many it has (0: one).
  int lastAnswerAlternative() const;
  int lastAnswerAlternatives() const;
  // The thumbnails shown in the last user message's bubble.
  void setLastUserImages(const std::vector<QImage>& images);

  // Programmatic sending (e.g. "Describe this image." after a drop): as if typed.
  void submit(const QString& text);

  int messageCount() const { return static_cast<int>(messages_.size()); }
  QString lastAnswer() const;
  QString lastAnswerStats() const;
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
  QAction* previousAnswerAction() const { return previousAnswer_; }
  QAction* nextAnswerAction() const { return nextAnswer_; }

 Q_SIGNALS:
  void sendRequested(const QString& text);
  void stopRequested();
  void regenerateRequested();
  void editResendRequested(const QString& text);
  void newChatRequested();
  // ◀ / ▶ (or Alt+Left / Alt+Right): show the last message's alternative `index` (0-based).
  void alternativeRequested(int index);
  // Enter while editing an earlier user message: replace message `turn` (0-based) with `text`
  // (the window decides what happens to the later messages).
  void editMessageRequested(int turn, const QString& text);
  // "Fork" under the answer of message `turn` (0-based): a new chat with the messages up to it.
  void forkRequested(int turn);
  // "Attention" under the answer of message `turn` (0-based): show that answer's maps.
  void answerMapsRequested(int turn);
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
    int alt = 0, alts = 0;       // an answer: alternative `alt` of `alts` (alts < 2: the one)
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
  int turnOf(size_t message) const;  // the user message's (or its answer's) turn, 0-based
  int userIndex(int turn) const;     // the message index of user message `turn`, -1 if none
  void stepAlternative(int delta);
  bool handleChatLink(const QUrl& url);  // alt/edit/fork links; false for other links

  std::vector<Message> messages_;
  ContextMeter* contextMeter_ = nullptr;
  bool busy_ = false;
  bool editing_ = false;
  int editTurn_ = -1;  // the user message being edited (0-based turn)
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
  QAction* previousAnswer_ = nullptr;
  QAction* nextAnswer_ = nullptr;
};

}  // namespace glance::ui
