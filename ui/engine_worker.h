#pragma once
// The engine's thread (docs/design.md "ui/"): one long-lived QObject, moved to a QThread by
// its owner, holding the shared_ptr<const Engine> and the glance::Session. Commands arrive as
// queued slot calls; results leave as value-type signals (see event_types.h).
//
// Thread contract: every slot runs on the worker thread. stop() and cancelLoad() are the only
// methods the GUI thread calls directly: they set atomics the session (StreamCallbacks::cancel,
// checked between vision blocks, prefill layers and generated tokens) and the load progress
// callback read, so Stop takes effect within one block, layer or token. Image encoding and
// continuing a conversation re-arm Stop themselves when they start; generation commands are
// re-armed by the GUI (rearm()) before it queues them. Owners shut down with stop();
// cancelLoad(); thread->quit(); wait().
#include <QImage>
#include <QObject>
#include <QString>
#include <QStringList>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/engine/caption_insight.h"
#include "ui/event_types.h"
#include "ui/remote_endpoint.h"
#include "ui/local_server_config.h"

Q_DECLARE_METATYPE(glance::CaptionInsight)

namespace glance::server {
class ChatServer;
}
namespace glance {
struct CaptionFolderOptions;
}

namespace glance::ui {

class EngineWorker : public QObject {
  Q_OBJECT
 public:
  explicit EngineWorker(QObject* parent = nullptr);
  ~EngineWorker() override;

  // Thread-safe. stop() halts the current (or the next queued) generation; armed again by
  // rearm(), which the GUI calls right before it queues a new generation command.
  void stop() { cancel_.store(true); }
  void rearm() { cancel_.store(false); }
  void cancelLoad() { cancelLoad_.store(true); }

 public Q_SLOTS:
  // `options` as the GUI built them from the settings registry (settings::ToEngineOptions).
  void loadModel(const QString& dir, const glance::EngineOptions& options);
  // Report progress() while encoding; Stop makes them emit cancelled("image").
  void attachImage(const QString& path);
  void attachPixels(const QImage& image);
  // Drops the `position`-th image (0-based, in message order) attached to the next message
  // and not yet sent (Session::RemovePendingImage); then pendingImageRemoved(position), or
  // error("remove-image", why).
  void removePendingImage(int position);
  // Takes up a saved conversation in a fresh session (Session::Continue): encodes its images
  // (by path, sha256 checked) and processes the history with progress(); then emits
  // conversationContinued(). Stop: cancelled("continue"); a problem: error("continue", why).
  // Either way the session is as before.
  void continueConversation(const glance::SavedConversation& turns);
  void send(const QString& text, const glance::GenerateOptions& options);
  void regenerate(const glance::GenerateOptions& options);
  void editLast(const QString& text, const glance::GenerateOptions& options);
  // Makes `text` the last answer (a kept alternative: Session::ChooseLastAnswer), then
  // contextUsage(); a problem: error("choose", why).
  void chooseAnswer(const QString& text);
  void reset();
  void setSystemPrompt(const QString& text);
  // For images attached from now on.
  void setImageMode(glance::ImageMode mode);
  // The most tokens a chat may hold (the "context_length" setting; Session::SetContextLimit):
  // for this session from its next turn and for the sessions of later loads. Then
  // contextLimitApplied() and contextUsage().
  void setContextLimit(int tokens);
  // Captions every image of `dir` not yet in `out` (.jsonl or .csv; core/engine/caption_folder.h)
  // with `prompt`, a fresh session per image (the chat's session is left alone). Reports
  // folderProgress() before each image and folderItem() after it; Stop ends the run inside the
  // current image, and what was written stays (the next run resumes by sha256). Ends with
  // folderFinished(); a problem with the folder or the output file: error("folder", why).
  // In engine_worker_caption.cpp.
  // `schema`: a JSON schema's text (every caption a JSON document it accepts, written into the
  // .jsonl as JSON), or empty for text captions.
  void captionFolder(const QString& dir, const QString& out, const QString& prompt,
                     const glance::GenerateOptions& options, const QString& schema = QString());
  // The folder view's run (ui/folder_view.h): captions into sidecars next to the images
  // (core/engine/caption_sidecar.h) with `ext`, `existing` ("skip", "overwrite", "append",
  // "prepend"), `prefix` and `replaceEdited`; `only`: these images (names relative to `dir`),
  // empty for the whole folder. `json` (a json-style caption preset, core/engine/caption_preset.h):
  // every caption a JSON document, of `schema` when given, else any JSON object. The same signals
  // as captionFolder; a bad option: error("folder").
  // `remote.on`: through that OpenAI-compatible endpoint instead of the loaded model (no model
  // needed), exactly as glance-cli caption DIR --endpoint (core/remote/; engine_worker_remote.cpp):
  // remote.concurrency requests in flight, Stop starts no image more and writes the answers on
  // their way; a server that stops answering or refuses the key ends the run with
  // error("folder", one line).
  void captionFolderSidecars(const QString& dir, const QStringList& only, const QString& ext,
                             const QString& existing, const QString& prefix, bool replaceEdited, bool recursive,
                             const QString& prompt, const glance::GenerateOptions& options, bool json = false,
                             const QString& schema = QString(),
                             const glance::ui::RemoteEndpointChoice& remote = glance::ui::RemoteEndpointChoice());
  // Attention rollout of the latest answer (Session::Rollout; `answer` its captured maps):
  // rolloutReady, or rolloutFailed with the one-line reason (too long a chat, no image).
  void rollout(const std::vector<glance::AttentionMap>& answer);
  // The local server (server/chat_server.h) on the loaded model, as `config` says (address,
  // port, API key, allowed origins); port 0 = any free port, and a port in use falls back to any
  // free one. It follows model switches. The chat and the server take turns on the engine
  // (holdEngine). serverChanged() tells the URL and the model name clients use, empty once
  // stopped; requestServed() reports each request answered; a failure (an address that cannot
  // be bound, an origin that is not one): error("server", why). In engine_worker_server.cpp.
  void startServer(const glance::ui::LocalServerConfig& config);
  void stopServer();

 Q_SIGNALS:
  void loadProgress(double fraction, const QString& what);
  void modelLoaded(const glance::ModelInfo& info);
  void imageAttached(const glance::ImageInfo& info);
  void pendingImageRemoved(int position);
  void turnStarted();
  void textPiece(const QString& piece);
  void attentionMap(const glance::AttentionMap& map);
  void turnFinished(const glance::TurnResult& result);
  // Image encoding (done/total vision blocks) and prompt processing (done/total prompt rows).
  void progress(const glance::Progress& progress);
  // Stop ended a step before it produced anything ("image", "generate" or "continue"); the
  // session is as before the command (a stopped Send keeps its images pending).
  void cancelled(const QString& during);
  void conversationContinued(int turns, int contextTokens);
  // What the session's context holds after a load, a turn (answered, stopped or failed), a
  // continued conversation or a reset, of its limit (Session::context_tokens/context_limit).
  void contextUsage(int used, int limit);
  // The context length asked for, the limit now in force (lower when the model holds fewer:
  // its max_position_embeddings, `modelLimit`); after a load and setContextLimit.
  void contextLimitApplied(int asked, int limit, int modelLimit);
  // Folder captioning: `done` of `total` images handled, `file` about to be captioned;
  // etaSeconds < 0 until the first image is done.
  void folderProgress(int done, int total, const QString& file, double etaSeconds);
  // One image handled: its caption (ok) or why it was skipped (!ok).
  void folderItem(const QString& file, const QString& text, bool ok);
  void folderFinished(int captioned, int alreadyDone, int skipped, bool stopped);
  // The folder view's runs (captionFolderSidecars): an image's caption's word maps and timing,
  // right before its folderItem — captured here, or from a Glance server's "glance" answer field
  // (another server sends none).
  void folderInsight(const QString& file, const glance::CaptionInsight& insight);
  void rolloutReady(const std::vector<glance::AttentionMap>& maps);
  void rolloutFailed(const QString& message);
  void serverChanged(const QString& url, const QString& model);
  // One request the local server answered or refused (emitted on the server's threads).
  void requestServed(const glance::server::ServedRequest& request);
  // A command waits because the local server is answering a request (Stop still works).
  void waitingForServer();
  // A failed command; `during` says which ("load", "image", "remove-image", "generate",
  // "continue", "settings", "server", "folder", "choose"), or "context": a message that did not
  // fit the chat's context length (ContextFull; the session as before it).
  void error(const QString& during, const QString& message);

 private:
  template <typename Run>
  void generate(Run&& run);
  StreamCallbacks callbacks();
  // While the local server runs: waits (polling, so Stop works: throws Cancelled) until no
  // request is using the engine and holds it until the returned handle dies; null otherwise.
  std::shared_ptr<void> holdEngine();
  void restartServer();  // after a model switch, on the new engine
  // captionFolder and captionFolderSidecars: `folder` is a CaptionFolderOptions (caption_folder.h).
  // `json`: JSON answers, of `schema` or (empty) any JSON object.
  // `insights`: capture each caption's attention and report folderInsight.
  void runCaptionFolder(const QString& dir, const CaptionFolderOptions& folder, const QString& prompt,
                        const GenerateOptions& options, bool json, const QString& schema, bool insights = false);
  // The remote run of captionFolderSidecars (engine_worker_remote.cpp).
  void runRemoteCaptionFolder(const QString& dir, CaptionFolderOptions folder, const QString& prompt,
                              const GenerateOptions& options, bool json, const QString& schema,
                              const RemoteEndpointChoice& remote);
  // CaptionFolder with `captioner` and the folder signals; `stoppedBecause` (optional) says why
  // the run was stopped from inside ("" when it was not): then error("folder", that) ends it.
  // `takeInsight` (optional): the insight the captioner left for an image's path, if any.
  void runFolderWith(const QString& dir, const CaptionFolderOptions& folder,
                     const std::function<std::string(const std::string&)>& captioner,
                     const std::function<std::string()>& stoppedBecause,
                     const std::function<std::optional<CaptionInsight>(const std::string&)>& takeInsight = {});

  std::shared_ptr<const Engine> engine_;
  std::unique_ptr<Session> session_;
  std::unique_ptr<server::ChatServer> server_;
  LocalServerConfig serverConfig_;  // what was asked for (restartServer)
  std::atomic<bool> cancel_{false};
  std::atomic<bool> cancelLoad_{false};
  ImageMode imageMode_ = ImageMode::kFast;
  std::optional<bool> thinking_;  // the last generation's, for the rollout's re-run of its prompt
  int contextLimit_ = kDefaultContextLimit;  // setContextLimit, for every session
  void applyContextLimit();
};

}  // namespace glance::ui
