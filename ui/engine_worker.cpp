#include "ui/engine_worker.h"

#include <QRegularExpression>

#include <exception>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "core/util/error.h"
#include "server/chat_server.h"

namespace glance::ui {

namespace {

// Hands the memory a replaced (or failed) engine freed back to the system. glibc keeps freed
// heap memory in its arenas and only trims the top of each; the weights were allocated on this
// thread's arena, interleaved with what outlives them, so switching from a 0.8B model to the
// demo model left ~900 MiB resident (issue 34). malloc_trim(0) releases the free pages inside
// every arena (glibc manual, "Memory Allocation Tunables" / malloc_trim(3)); elsewhere a no-op.
void ReturnFreedMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace

EngineWorker::EngineWorker(QObject* parent) : QObject(parent) {
  RegisterEventTypes();
  qRegisterMetaType<glance::CaptionInsight>();  // folderInsight, queued to the folder view
}

// The session must go before the engine it points into; both die on the worker thread
// (the owner connects QThread::finished to deleteLater).
EngineWorker::~EngineWorker() {
  server_.reset();  // its requests use the engine too
  session_.reset();
  engine_.reset();
}

void EngineWorker::loadModel(const QString& dir, const EngineOptions& options) {
  cancelLoad_.store(false);
  try {
    auto progress = [this](double fraction, const std::string& what) {
      Q_EMIT loadProgress(fraction, Q(what));
      return !cancelLoad_.load();
    };
    std::shared_ptr<const Engine> engine = Engine::Load(dir.toStdString(), options, progress);
    const bool serving = server_ != nullptr;
    server_.reset();  // it serves the old engine
    session_.reset();  // a session belongs to one engine
    engine_ = std::move(engine);  // the old engine goes here, unless a request still holds it
    ReturnFreedMemory();
    session_ = std::make_unique<Session>(engine_);
    Q_EMIT modelLoaded(engine_->info());
    applyContextLimit();
    if (serving) restartServer();
  } catch (const std::exception& e) {
    ReturnFreedMemory();  // what the failed load had read
    Q_EMIT error(QStringLiteral("load"), QString::fromUtf8(e.what()));
  }
}

void EngineWorker::attachImage(const QString& path) {
  if (!session_) {
    Q_EMIT error(QStringLiteral("image"), tr("No model is loaded."));
    return;
  }
  rearm();
  try {
    const auto hold = holdEngine();
    Q_EMIT imageAttached(session_->AttachImage(path.toStdString(), imageMode_, callbacks()));
  } catch (const Cancelled&) {
    Q_EMIT cancelled(QStringLiteral("image"));
  } catch (const std::exception& e) {
    Q_EMIT error(QStringLiteral("image"), QString::fromUtf8(e.what()));
  }
}

void EngineWorker::attachPixels(const QImage& image) {
  if (!session_) {
    Q_EMIT error(QStringLiteral("image"), tr("No model is loaded."));
    return;
  }
  rearm();
  try {
    const auto hold = holdEngine();
    const QImage rgb = image.convertToFormat(QImage::Format_RGB888);
    Q_EMIT imageAttached(session_->AttachImageRgb(rgb.constBits(), rgb.width(), rgb.height(),
                                                  static_cast<int>(rgb.bytesPerLine()), imageMode_,
                                                  callbacks()));
  } catch (const Cancelled&) {
    Q_EMIT cancelled(QStringLiteral("image"));
  } catch (const std::exception& e) {
    Q_EMIT error(QStringLiteral("image"), QString::fromUtf8(e.what()));
  }
}

void EngineWorker::removePendingImage(int position) {
  try {
    std::vector<int> pending;  // the next message's images, in its order
    if (session_)
      for (const MessagePart& part : session_->pending_parts())
        if (part.kind == MessagePart::kImage) pending.push_back(part.image);
    if (position < 0 || position >= static_cast<int>(pending.size()))
      throw Error("there is no attached image " + std::to_string(position + 1) + " to remove");
    session_->RemovePendingImage(pending[static_cast<size_t>(position)]);
    Q_EMIT pendingImageRemoved(position);
  } catch (const std::exception& e) {
    Q_EMIT error(QStringLiteral("remove-image"), QString::fromUtf8(e.what()));
  }
}

StreamCallbacks EngineWorker::callbacks() {
  StreamCallbacks cb;
  cb.on_text = [this](const std::string& piece) { Q_EMIT textPiece(Q(piece)); };
  cb.on_attention = [this](const AttentionMap& map) { Q_EMIT attentionMap(map); };
  cb.on_progress = [this](const Progress& p) { Q_EMIT progress(p); };
  cb.cancel = &cancel_;
  return cb;
}

template <typename Run>
void EngineWorker::generate(Run&& run) {
  if (!session_) {
    Q_EMIT error(QStringLiteral("generate"), tr("No model is loaded."));
    return;
  }
  Q_EMIT turnStarted();
  try {
    const auto hold = holdEngine();
    Q_EMIT turnFinished(run(callbacks()));
  } catch (const Cancelled&) {
    Q_EMIT cancelled(QStringLiteral("generate"));
  } catch (const ContextFull& e) {
    Q_EMIT error(QStringLiteral("context"), QString::fromUtf8(e.what()));
  } catch (const std::exception& e) {
    Q_EMIT error(QStringLiteral("generate"), QString::fromUtf8(e.what()));
  }
  Q_EMIT contextUsage(session_->context_tokens(), session_->context_limit());
}

void EngineWorker::rollout(const std::vector<AttentionMap>& answer) {
  if (!session_) {
    Q_EMIT rolloutFailed(tr("No model is loaded."));
    return;
  }
  // Rollout re-runs the latest turn: maps of an earlier answer (its "Attention" link) are refused.
  QString shown, latest = session_->turns().empty() ? QString() : Q(session_->turns().back().answer);
  for (const AttentionMap& m : answer) shown += Q(m.token_text);
  shown.remove(QRegularExpression(QStringLiteral("\\s")));
  latest.remove(QRegularExpression(QStringLiteral("\\s")));
  if (latest.isEmpty() || !(shown.contains(latest) || latest.contains(shown))) {
    Q_EMIT rolloutFailed(tr("it is computed for the latest answer only; show that answer's attention first"));
    return;
  }
  try {
    const auto hold = holdEngine();
    Q_EMIT rolloutReady(session_->Rollout(answer, thinking_));
  } catch (const std::exception& e) {
    Q_EMIT rolloutFailed(QString::fromUtf8(e.what()));
  }
}

void EngineWorker::send(const QString& text, const GenerateOptions& options) {
  thinking_ = options.enable_thinking;
  generate([&](const StreamCallbacks& cb) { return session_->Send(text.toStdString(), options, cb); });
}

void EngineWorker::regenerate(const GenerateOptions& options) {
  thinking_ = options.enable_thinking;
  generate([&](const StreamCallbacks& cb) { return session_->Regenerate(options, cb); });
}

void EngineWorker::editLast(const QString& text, const GenerateOptions& options) {
  thinking_ = options.enable_thinking;
  generate([&](const StreamCallbacks& cb) {
    return session_->EditLastUser(text.toStdString(), options, cb);
  });
}

void EngineWorker::chooseAnswer(const QString& text) {
  if (!session_) return;
  try {
    session_->ChooseLastAnswer(text.toStdString());
    Q_EMIT contextUsage(session_->context_tokens(), session_->context_limit());
  } catch (const std::exception& e) {
    Q_EMIT error(QStringLiteral("choose"), QString::fromUtf8(e.what()));
  }
}

void EngineWorker::continueConversation(const SavedConversation& turns) {
  if (!session_) {
    Q_EMIT error(QStringLiteral("continue"), tr("No model is loaded."));
    return;
  }
  rearm();
  try {
    const auto hold = holdEngine();
    session_->Continue(turns, callbacks());
    Q_EMIT conversationContinued(static_cast<int>(session_->turns().size()), session_->context_tokens());
    Q_EMIT contextUsage(session_->context_tokens(), session_->context_limit());
  } catch (const Cancelled&) {
    Q_EMIT cancelled(QStringLiteral("continue"));
  } catch (const std::exception& e) {
    Q_EMIT error(QStringLiteral("continue"), QString::fromUtf8(e.what()));
  }
}

void EngineWorker::reset() {
  if (!session_) return;
  session_->Reset();
  Q_EMIT contextUsage(session_->context_tokens(), session_->context_limit());
}

void EngineWorker::setSystemPrompt(const QString& text) {
  if (!session_) return;
  try {
    session_->SetSystemPrompt(text.toStdString());
  } catch (const std::exception& e) {  // e.g. the conversation has already started
    Q_EMIT error(QStringLiteral("settings"), QString::fromUtf8(e.what()));
  }
}

void EngineWorker::setImageMode(ImageMode mode) { imageMode_ = mode; }

void EngineWorker::setContextLimit(int tokens) {
  contextLimit_ = tokens;
  if (server_) {
    try {
      server_->SetContextLength(tokens);  // the local server's conversations, from their next request
    } catch (const std::exception& e) {
      Q_EMIT error(QStringLiteral("settings"), QString::fromUtf8(e.what()));
    }
  }
  applyContextLimit();
}

void EngineWorker::applyContextLimit() {
  if (!session_) return;
  try {
    const int limit = session_->SetContextLimit(contextLimit_);
    Q_EMIT contextLimitApplied(contextLimit_, limit, session_->model_context_limit());
  } catch (const std::exception& e) {  // below the minimum: the registry refuses it first
    Q_EMIT error(QStringLiteral("settings"), QString::fromUtf8(e.what()));
  }
  Q_EMIT contextUsage(session_->context_tokens(), session_->context_limit());
}

}  // namespace glance::ui
