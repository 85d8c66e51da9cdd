#pragma once
// The main window (docs/design.md "The window"): Chat in the centre; Conversations,
// Image & attention and Timing as dock widgets the user can move or hide (layout remembered);
// a status bar with model · backend (and why) · threads · memory. Owns the engine thread:
// commands go to the EngineWorker by queued signals, events come back as values.
// Settings come from a SettingsStore (core/settings/registry.h), conversations are saved to a
// ConversationStore after every finished turn, and problems (a folder that is not a model, a
// failed load) show in an inline notice above the chat, never in a chain of dialogs.
// GUI thread only.
#include <QElapsedTimer>
#include <QImage>
#include <QMainWindow>
#include <deque>
#include <functional>
#include <vector>

#include "ui/conversation_store_types.h"
#include "ui/event_types.h"
#include "ui/local_server_config.h"
#include "ui/model_manager_dialog.h"

class QAction;
class QBoxLayout;
class QLabel;
class QMenu;
class QListWidget;
class QProgressBar;
class QThread;
class QToolButton;

namespace glance::ui {

class AttentionPanel;
class ChatPresetBar;
class ChatPresetStore;
class NoticeBar;
class CaptionFolderDialog;
class ChatView;
class ConversationSidebar;
class ConversationStore;
class SettingsStore;
class EngineWorker;
class ImageDropArea;
class ModelSwitchButton;
class ServerPanel;
class ServerRequestLog;
class TimingPanel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // settings / store: used as given (tests pass their own; not owned); nullptr = the
  // application's QSettings and ConversationStore::DefaultFolder(), owned by the window.
  explicit MainWindow(QWidget* parent = nullptr, SettingsStore* settings = nullptr,
                      ConversationStore* store = nullptr);
  ~MainWindow() override;

  // Loads through the worker with the store's threads/backend. On failure the notice says why
  // and a model that was already loaded keeps working.
  void loadModel(const QString& dir);
  void loadDefaultModel();  // the bundled demo (glance::DefaultDemoModelDir())
  // The store's model_dir, or the demo when it is empty; a failing model_dir falls back to
  // the demo with a note.
  void loadLastModel();
  // A problem found while starting (data left in the old data folder), shown until closed.
  void showStartProblem(const QString& text);
  // Attaches an image file; with `caption`, sends "Describe this image." once it is ready.
  // `name` is what the image area calls it (default: the file's name; a kept copy is named by hash).
  void attachImageFile(const QString& path, bool caption, const QString& name = {});
  void attachImagePixels(const QImage& image, bool caption);

  // What happens when the user brings an image (Open, Paste, a drop) into a chat that already
  // has an answer: ask (the default), start a new chat, or add it to this chat. The demo model
  // mixed up two pictures silently added to one chat (issue 34). Kept in QSettings.
  enum class ImageIntoAnsweredChat { kAsk, kNewChat, kAddToChat };
  void setImageIntoAnsweredChat(ImageIntoAnsweredChat policy);
  ImageIntoAnsweredChat imageIntoAnsweredChat() const { return imagePolicy_; }
  // Applies that policy before a user's image; false when the user cancelled.
  bool prepareChatForImage();
  // Drops the `position`-th attached, unsent image (the strip's remove button).
  void removeAttachment(int position);
  // Shows image `image` of the `turn`-th user message (current_.turns; turns.size() = the
  // message being answered) in the Image & attention dock, with its maps when they were kept:
  // every image of the last message (TurnResult::attention_by_image), the last image of an
  // earlier one.
  void showMessageImage(int turn, int image);
  // The "Attention" link under an answer: the image the answer of message `turn` looked at (its
  // maps' image, which may belong to an earlier message) with that answer's saved maps and words.
  // False (with a status line) when the answer kept no maps or its image is gone.
  bool showAnswerMaps(int turn);
  // True for a picture the demo model cannot know: a photo or screenshot rather than one of its
  // flat-coloured shape scenes (many distinct colours). The demo captioned real photos as
  // shapes without a word (issue 34); such an image gets a hint to download a real model.
  static bool LooksLikeAPhoto(const QImage& image);
  // Grab the window to `path` after the first finished turn, then close (for docs/tests).
  void setScreenshotPath(const QString& path) { screenshotPath_ = path; }

  // Ask before a detail-mode image becomes thousands of tokens (DetailEstimate); tests turn
  // the question off.
  void setConfirmDetail(bool on) { confirmDetail_ = on; }

  bool captionOnDrop() const { return captionOnDrop_; }
  void setCaptionOnDrop(bool on) { captionOnDrop_ = on; }
  // From the settings store (refreshed whenever a setting changes); tests may tweak it.
  GenerateOptions& generateOptions() { return options_; }
  bool isModelLoaded() const { return modelLoaded_; }
  const ModelInfo& modelInfo() const { return model_; }

  // Conversations.
  void newChat();
  // Shows a saved conversation. The next Send, Regenerate or Edit first re-processes its
  // history in the engine (with progress and Stop), so it continues after a restart or a
  // model switch. Read-only only when one of its images can no longer be found.
  bool openConversation(const QString& id);
  bool exportConversation(const QString& path, bool markdown);
  // ◀ 2/3 ▶: shows answer `index` (0-based) of the last message's alternatives (Regenerate
  // keeps the earlier answers) and makes it the one the conversation continues from
  // (Session::ChooseLastAnswer; exact, nothing is processed again). Saved at once. False when
  // busy or there is no such other answer.
  bool chooseAnswer(int index);
  // "Fork": saves a new conversation with the messages up to and including message `turn`
  // (0-based) and their answers, titled "… (fork)", and opens it, ready to continue (the next
  // message re-reads it in the engine). This conversation is left unchanged. Returns the new
  // conversation's id; empty when busy, out of range or the save failed (the notice says why).
  QString forkConversation(int turn);
  // Editing a message before the last: its later messages and answers would go. Ask (the
  // default: "Edit in a fork" keeps this chat as it is, "Edit here" drops them), or decide.
  enum class EditEarlier { kAsk, kDropLater, kFork };
  void setEditEarlierPolicy(EditEarlier policy) { editEarlier_ = policy; }
  // Replaces user message `turn` (0-based) with `text` and answers it again. The last message:
  // Session::EditLastUser (its snapshot). An earlier one (EditEarlier): the chat — or its fork
  // — is cut after that message and re-read in the engine up to it (Session::Continue), then
  // edited as the last. False when busy, read-only, out of range or cancelled.
  bool editMessage(int turn, const QString& text);
  const Conversation& currentConversation() const { return current_; }
  bool isReadOnly() const { return readOnly_; }
  QString noticeText() const;
  // The status bar's live decoding rate while an answer streams ("12.3 tok/s"), else empty.
  QString liveRateText() const;
  // View ▸ Reset layout: the docks back where a first run puts them (shown, docked, sized).
  void resetLayout();

  // Menu actions, callable directly.
  // File ▸ Caption a folder…: the (one, reused) dialog, shown; nullptr without a model.
  CaptionFolderDialog* openCaptionFolder();
  // Attaches and captions a held-out demo scene (core/engine/demo_scenes.h), a different one
  // each time; returns its path, or empty (the notice says why) when the scenes are missing.
  QString tryDemoScene();
  // The "Local server" toggle: an OpenAI-compatible server (server/chat_server.h) serving the
  // loaded model with the server panel's settings (LocalServerConfig: 127.0.0.1:8080 unless
  // changed); `port` >= 0 overrides the port (0 = any free port; a busy port falls back to
  // one). The chat and the server take turns on the engine. localServerChanged() gives the
  // URL, empty when off.
  void setLocalServer(bool on, int port = -1);
  QString localServerUrl() const { return serverUrl_; }
  // File ▸ Local server panel… (ui/server_panel.h): settings, state, request log, examples.
  ServerPanel* openServerPanel();
  ServerRequestLog* serverLog() const { return serverLog_; }
  void openSettings();
  void openDownloads();
  void showModelInfo();
  // File ▸ Manage models… (ui/model_manager_dialog.h): the demo, the downloaded models and the
  // folders opened (the last kRecentModelsKey ones), with Load, Reveal, Delete and Download.
  void openModelManager();
  ModelManagerDialog::Sources modelSources() const;
  static constexpr const char* kRecentModelsKey = "models/recent";  // newline-separated, newest first
  // Where downloads go and went: the download dialog's Folder… choices, newest first, then the
  // default models folder. Models in any of them are "downloaded" in the manager (deletable).
  QStringList downloadFolders() const;
  QStringList recentModelFolders() const;  // kRecentModelsKey, newest first
  // The download dialog's folder after it closes: kept for the next download and start.
  void rememberDownloadFolder(const QString& dir);
  static constexpr const char* kDownloadFoldersKey = "models/download_folders";  // newline-separated

  // Chat presets (ui/chat_preset_bar.h, main_window_presets.cpp): `name` ("" = none, the
  // Settings' sampling and system prompt) applies from the next message, is kept with this chat
  // and becomes new chats' default. A different system prompt takes effect at once in an empty
  // chat; in one with messages, the next message first re-reads the chat with it.
  void chooseChatPreset(const QString& name);
  // What the next message is sent with: the Settings' options, the chat's preset applied.
  GenerateOptions turnOptions() const;
  // How the next image is read: the chat's preset's image mode, else the Settings' one.
  ImageMode imageMode() const;
  ChatPresetBar* presetBar() const { return presetBar_; }
  ChatPresetStore* chatPresets() const { return presetStore_; }

  ChatView* chat() const { return chat_; }
  AttentionPanel* attention() const { return attention_; }
  TimingPanel* timing() const { return timing_; }
  ImageDropArea* dropArea() const { return dropArea_; }
  QListWidget* conversations() const;  // the sidebar's list
  ConversationSidebar* sidebar() const { return sidebar_; }
  SettingsStore* settings() const { return settings_; }
  ConversationStore* conversationStore() const { return store_; }
  EngineWorker* worker() const { return worker_; }

 Q_SIGNALS:
  // To the worker (queued: it lives on the engine thread).
  void requestLoad(const QString& dir, const glance::EngineOptions& options);
  void requestImageMode(glance::ImageMode mode);
  void requestContextLimit(int tokens);
  void requestSystemPrompt(const QString& text);
  void requestAttachImage(const QString& path);
  void requestRemovePendingImage(int position);
  void requestSend(const QString& text, const glance::GenerateOptions& options);
  void requestRegenerate(const glance::GenerateOptions& options);
  void requestEdit(const QString& text, const glance::GenerateOptions& options);
  void requestChooseAnswer(const QString& text);
  void requestReset();
  void requestContinue(const glance::SavedConversation& turns);
  void requestStartServer(const glance::ui::LocalServerConfig& config);
  void requestStopServer();
  void localServerChanged(const QString& url);
  void requestCaptionFolder(const QString& dir, const QString& out, const QString& prompt,
                            const glance::GenerateOptions& options, const QString& schema);
  // For observers (tests, the conversation store), on the GUI thread.
  void modelReady(const glance::ModelInfo& info);
  void turnCompleted(const glance::TurnResult& result);
  void failed(const QString& message);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildDocks();
  void buildMenus();
  void buildStatusBar();
  void connectWorker();
  void shutdownWorker();
  void restoreLayout();
  void watchSettingsFile();
  void applyDefaultLayout();  // docks where a first run puts them, for this screen
  QSize FitScreen(QSize wanted) const;  // bounded by the screen's available size
  void saveLayout() const;
  void buildModelMenu(QMenu* file);
  void rememberModelFolder(const QString& dir);  // a model folder loaded: first in the recent list
  void buildConversationMenu(QMenu* file);
  void buildToolsMenu(QMenu* file);  // main_window_tools.cpp
  void buildPresets(QBoxLayout* centre);  // main_window_presets.cpp
  // The chat's preset's system prompt, or the Settings' when it has none.
  QString presetSystemPrompt(const QString& preset) const;
  void connectTools();               // after connectWorker()
  void applySettings();
  void onSettingChanged(const QString& key);
  // The notice above the chat (notice_bar.h). The plain form is a notice about nothing in
  // particular, cleared by the next one or New chat; a keyed one is cleared by clearNotice(key)
  // when its reason ends.
  void showNotice(const QString& text);
  void showKeyedNotice(const QString& key, const QString& text, int kind = 0,
                       const QString& actionText = {}, std::function<void()> action = {},
                       int timeoutMs = 0);
  void clearNotice(const QString& key);
  void afterAnswer();  // the turn ended (finished, failed or stopped)
  void setReadOnly(bool on, const QString& why = QString());
  // `stats`: the result's, with the re-read stage when the answer first re-read the chat.
  void recordTurn(const TurnResult& result, const TurnStats& stats);
  // The chat view's messages and answers from `conversation` (showConversation also resets the
  // Timing and attention panels).
  void showTranscript(const Conversation& conversation);
  void showConversation(const Conversation& conversation);
  // The Timing panel: one bar per turn of `conversation`, each its shown answer's; `fresh` for a
  // conversation newly shown (TimingPanel::setTurns).
  void showTiming(const Conversation& conversation, bool fresh);
  // The context meter by the message box: what the session holds (or, for a saved chat not yet
  // re-read, what its last turn left) plus the message being written.
  void updateContextMeter();
  void openNewestConversation();

  void onModelLoaded(const ModelInfo& info);
  void onLoadProgress(double fraction, const QString& what);
  void onImageAttached(const ImageInfo& info);
  void onPendingImageRemoved(int position);
  void dropIncomingImage();   // the image being encoded failed or was stopped
  void restoreSentImages();   // a Send that never began: its images are pending again
  void buildImageMenu(QMenu* chat);  // main_window_images.cpp
  // Small copies of a saved turn's images for its bubble (files found by path or sha256).
  std::vector<QImage> thumbnailsOf(const ConversationTurn& turn) const;
  // What the vision tower saw of a saved image (for the attention view); null when gone.
  // The image as the model saw it; `source` (if given) gets the picture it was made from.
  QImage processedImageOf(const ImageInfo& info, QImage* source = nullptr) const;
  void onTurnFinished(const TurnResult& result);
  void onError(const QString& during, const QString& message);
  void startTurn();
  // False when the user cancels; *useFast when they pick fast mode for this image.
  bool confirmDetail(const QString& path, bool* useFast);
  // Runs `command` now when the engine holds current_, else after continuing it there.
  void whenContinued(std::function<void()> command);
  void onProgress(const Progress& progress);
  void onCancelled(const QString& during);
  // current_ as Session::Continue takes it (images found by path and sha256); false + *why
  // when an image is missing.
  bool savedHistory(SavedConversation* out, bool dropLastAnswer, QString* why) const;
  void updateMemory();

  QThread* thread_ = nullptr;
  EngineWorker* worker_ = nullptr;
  ChatView* chat_ = nullptr;
  AttentionPanel* attention_ = nullptr;
  TimingPanel* timing_ = nullptr;
  ImageDropArea* dropArea_ = nullptr;
  ConversationSidebar* sidebar_ = nullptr;
  SettingsStore* settings_ = nullptr;
  ConversationStore* store_ = nullptr;
  NoticeBar* notice_ = nullptr;
  QStringList pendingLoadSettings_;  // changed settings that wait for the next load
  QString openAfterStop_;            // a conversation to open once the answer has stopped
  QAction* captionAction_ = nullptr;
  QByteArray defaultState_;  // saveState() of the first-run layout
  QLabel* modelLabel_ = nullptr;
  ModelSwitchButton* modelSwitch_ = nullptr;  // beside the name: the known models, Manage models…
  QLabel* backendLabel_ = nullptr;
  QLabel* threadsLabel_ = nullptr;
  QLabel* memoryLabel_ = nullptr;
  QProgressBar* loadBar_ = nullptr;
  QToolButton* cancelLoad_ = nullptr;

  GenerateOptions options_;
  ModelInfo model_;
  bool modelLoaded_ = false;
  bool captionOnDrop_ = true;
  bool captionPending_ = false;
  // Images sent to the engine and not yet encoded, in order: their previews and names.
  struct Incoming {
    QImage preview;
    QString name;
  };
  std::deque<Incoming> incoming_;
  std::vector<QImage> pendingPreviews_;  // pendingImages_' processed views, in order
  // The message being answered: its images' thumbnails, names and processed views (a stopped
  // Send puts them back in the strip).
  std::vector<QImage> sentThumbs_, sentPreviews_;
  std::vector<QString> sentNames_;
  // The last answer's maps over each image of its message, and its words.
  std::vector<ImageAttention> lastImageMaps_;
  std::vector<AttentionWord> lastWords_;
  ImageIntoAnsweredChat imagePolicy_ = ImageIntoAnsweredChat::kAsk;
  int imageCount_ = 0;   // images in this conversation (AttentionMap::image_index)
  QString screenshotPath_;
  bool shutDown_ = false;

  // Conversation bookkeeping: what the running turn will become in current_.
  Conversation current_;
  bool readOnly_ = false;
  QString pendingUser_;
  bool replaceLastTurn_ = false;             // regenerate / edit-and-resend
  std::vector<ImageInfo> pendingImages_;     // attached since the last recorded turn
  bool fallBackToDemo_ = false;              // the start-up model_dir load
  bool keepNoticeOnLoad_ = false;            // the fallback's notice survives the demo load
  int contextUsed_ = 0;   // EngineWorker::contextUsage
  bool answering_ = false;  // a Send, Regenerate or Edit is being answered (startTurn..afterAnswer)
  int answerPieces_ = 0;    // its streamed pieces so far (about one token each)
  QElapsedTimer firstPiece_;      // since the answer's first piece: the live rate
  qint64 rateShownAtMs_ = -1000;  // the live rate is redrawn at most 4 times a second
  QElapsedTimer rereadTimer_;     // a saved chat being re-read before its next message
  double rereadSeconds_ = -1.0;   // that re-read, for the next answer's stats line (-1: none)
  QLabel* rateLabel_ = nullptr;   // "12.3 tok/s" while an answer streams
  int contextLimit_ = 0;
  int contextLengthSent_ = -1;  // the "context_length" setting last sent to the worker
  bool needsContinue_ = false;               // current_ is not (yet) in the engine's session
  std::function<void()> afterContinue_;      // the command waiting for the continuation
  bool regenerating_ = false;                // afterContinue_ is a Regenerate
  bool confirmDetail_ = true;
  EditEarlier editEarlier_ = EditEarlier::kAsk;
  double visionSecondsPerToken_ = 0.0;       // measured on this machine (0: not yet)
  double prefillTokensPerSecond_ = 0.0;
  QString loadingDir_;
  CaptionFolderDialog* captionFolder_ = nullptr;
  quint64 demoSceneSeed_ = 0;  // the next "Try a demo scene" (random start, then in turn)
  QAction* serverAction_ = nullptr;
  QLabel* serverLabel_ = nullptr;
  QString serverUrl_;  // the local server's, empty when it is off
  ServerRequestLog* serverLog_ = nullptr;  // every request it answered (kept while the panel is closed)
  ServerPanel* serverPanel_ = nullptr;     // made when first opened
  ChatPresetStore* presetStore_ = nullptr;
  ChatPresetBar* presetBar_ = nullptr;
};

}  // namespace glance::ui
