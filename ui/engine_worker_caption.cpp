// EngineWorker::captionFolder: File ▸ Caption a folder… on the engine thread, through the same
// core/engine/caption_folder as `glance-cli caption DIR --out FILE`; captionFolderSidecars: the
// folder view's run into sidecars, as `glance-cli caption DIR --sidecar`.
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>

#include "core/engine/caption_folder.h"
#include "core/engine/json_constraint.h"
#include "core/engine/session.h"
#include "core/util/error.h"
#include "ui/engine_worker.h"

namespace glance::ui {

void EngineWorker::captionFolder(const QString& dir, const QString& out, const QString& prompt,
                                 const GenerateOptions& options, const QString& schema) {
  CaptionFolderOptions folder;
  folder.out_path = out.toStdString();
  folder.json_captions = !schema.isEmpty();
  runCaptionFolder(dir, folder, prompt, options, !schema.isEmpty(), schema);
}

void EngineWorker::captionFolderSidecars(const QString& dir, const QStringList& only, const QString& ext,
                                         const QString& existing, const QString& prefix, bool replaceEdited,
                                         bool recursive, const QString& prompt, const GenerateOptions& options,
                                         bool json, const QString& schema, const RemoteEndpointChoice& remote) {
  CaptionFolderOptions folder;
  folder.recursive = recursive;
  try {
    SidecarOptions sidecar;
    sidecar.ext = ext.toStdString();
    CheckSidecarExtension(sidecar.ext);
    sidecar.existing = ParseSidecarExisting(existing.toStdString());
    sidecar.prefix = prefix.toStdString();
    sidecar.replace_edited = replaceEdited;
    folder.sidecar = sidecar;
  } catch (const std::exception& e) {
    Q_EMIT error(QStringLiteral("folder"), QString::fromUtf8(e.what()));
    return;
  }
  if (!only.isEmpty()) {
    folder.only.emplace();
    for (const QString& name : only) folder.only->insert(name.toStdString());
  }
  if (remote.on) {
    runRemoteCaptionFolder(dir, folder, prompt, options, json, schema, remote);
    return;
  }
  runCaptionFolder(dir, folder, prompt, options, json, schema, /*insights=*/true);
}

void EngineWorker::runCaptionFolder(const QString& dir, const CaptionFolderOptions& folder, const QString& prompt,
                                    const GenerateOptions& options, bool json, const QString& schema, bool insights) {
  if (!engine_) {
    Q_EMIT error(QStringLiteral("folder"), tr("No model is loaded."));
    return;
  }
  rearm();
  GenerateOptions opts = options;
  opts.capture_attention = insights;  // the folder view shows them; the Caption a folder dialog does not
  std::mutex insightMutex;
  std::map<std::string, CaptionInsight> found;
  if (json) {  // constrained decoding, as glance-cli caption --json-schema
    try {
      JsonConstraintCache schemas(engine_->tokenizer());
      opts.constraint = schema.isEmpty() ? schemas.AnyObject() : schemas.ForSchemaText(schema.toStdString(), "the JSON schema");
      opts.enable_thinking = false;  // the answer starts with the document
    } catch (const std::exception& e) {
      Q_EMIT error(QStringLiteral("folder"), QString::fromUtf8(e.what()));
      return;
    }
  }
  const std::string question = prompt.toStdString();
  // One session per image: each caption sees only its own image, as in the CLI. The stream's
  // cancel flag is Stop, so it takes effect inside an image, not only between images.
  auto captioner = [&](const std::string& path) {
    // Held per image, so server requests can run between the images of a long folder.
    const auto hold = holdEngine();
    Session session(engine_);
    StreamCallbacks cb;
    cb.cancel = &cancel_;
    try {
      session.AttachImage(path, imageMode_, cb);
      const TurnResult r = session.Send(question, opts, cb);
      // Stopped mid-answer: the words so far are not this image's caption (a sidecar cut off
      // mid-phrase); the image is left for the next run, as one stopped before its first token.
      if (r.stop_reason == "cancelled") throw Cancelled();
      if (insights) {
        std::lock_guard lock(insightMutex);
        found[path] = InsightFromTurn(r);
      }
      // A constrained answer cut short is not a document: that image fails, nothing is written.
      if (opts.constraint && r.stop_reason != "eos" && !cancel_.load())
        throw Error(path + ": the JSON answer did not finish within " + std::to_string(opts.max_new_tokens) +
                    " tokens (" + r.stop_reason + "); raise the maximum new tokens in Settings");
      return r.text;
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {  // one bad image must not end the run
      throw Error(path + ": " + e.what());
    }
  };
  runFolderWith(dir, folder, captioner, nullptr, [&](const std::string& path) -> std::optional<CaptionInsight> {
    std::lock_guard lock(insightMutex);
    const auto it = found.find(path);
    if (it == found.end()) return std::nullopt;
    CaptionInsight insight = std::move(it->second);
    found.erase(it);
    return insight;
  });
}

void EngineWorker::runFolderWith(const QString& dir, const CaptionFolderOptions& folder, const Captioner& captioner,
                                 const std::function<std::string()>& stoppedBecause,
                                 const std::function<std::optional<CaptionInsight>(const std::string&)>& takeInsight) {
  const auto stopped = [&] { return stoppedBecause ? stoppedBecause() : std::string(); };
  int skipped = 0;
  CaptionFolderCallbacks cb;
  cb.cancel = &cancel_;
  cb.on_start = [&](const CaptionFolderProgress& p) {
    Q_EMIT folderProgress(p.done, p.total, Q(p.file), p.eta_s ? *p.eta_s : -1.0);
  };
  cb.on_captioned = [&](const CaptionRecord& r, const CaptionFolderProgress& p) {
    if (takeInsight)
      if (auto insight = takeInsight((std::filesystem::path(dir.toStdString()) / r.file).string()))
        Q_EMIT folderInsight(Q(r.file), *insight);
    Q_EMIT folderItem(Q(r.file), Q(r.caption), true);
    Q_EMIT folderProgress(p.done, p.total, QString(), p.eta_s ? *p.eta_s : -1.0);
  };
  cb.on_failed = [&](const std::string& file, const std::string& why) {
    if (cancel_.load()) return;  // the image Stop interrupted: not a bad file
    if (!stopped().empty()) return;  // the server is gone: said once, at the end
    ++skipped;
    Q_EMIT folderItem(Q(file), Q(why), false);
  };
  cb.on_duplicate = [&](const std::string& file, const std::string& sameAs) {
    ++skipped;
    Q_EMIT folderItem(Q(file), tr("the same image as %1").arg(Q(sameAs)), false);
  };
  try {
    const CaptionFolderSummary s = CaptionFolder(dir.toStdString(), folder, captioner, cb);
    if (const std::string why = stopped(); !why.empty()) {
      Q_EMIT error(QStringLiteral("folder"),
                   tr("Stopped after %1 captioned (the rest on the next run): %2").arg(s.captioned).arg(Q(why)));
      return;
    }
    Q_EMIT folderFinished(s.captioned, s.already_done, skipped, s.cancelled || cancel_.load());
  } catch (const std::exception& e) {
    Q_EMIT error(QStringLiteral("folder"), QString::fromUtf8(e.what()));
  }
}

}  // namespace glance::ui
