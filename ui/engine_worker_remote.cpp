// EngineWorker::runRemoteCaptionFolder: the folder view's run through an OpenAI-compatible
// endpoint (issue 33), with the client, request and stop rule of glance-cli caption DIR --endpoint
// (core/remote/): no model here, the images in flight up to the chosen concurrency, writes and
// signals on this thread through the same runFolderWith as a local run.
#include <exception>
#include <map>
#include <memory>
#include <mutex>

#include "core/engine/caption_folder.h"
#include "core/remote/remote_captioner.h"
#include "core/remote/remote_client.h"
#include "core/remote/remote_run.h"
#include "ui/engine_worker.h"

namespace glance::ui {

void EngineWorker::runRemoteCaptionFolder(const QString& dir, CaptionFolderOptions folder, const QString& prompt,
                                          const GenerateOptions& options, bool json, const QString& schema,
                                          const RemoteEndpointChoice& remote) {
  rearm();
  remote::RemoteCaptionRequest request;
  std::shared_ptr<const remote::RemoteClient> client;
  try {
    if (const std::string problem = remote::RemoteRequestProblem(options); !problem.empty()) throw Error(problem);
    remote::RemoteOptions o;
    o.endpoint = remote.url.toStdString();
    o.api_key = remote.effectiveKey().toStdString();
    o.read_timeout_s = remote.timeoutS;
    o.cancel = &cancel_;  // Stop ends a pause between tries
    client = std::make_shared<const remote::RemoteClient>(std::move(o));
    bool glanceServer = false;
    request.model = remote::ResolveRemoteModel(*client, remote.model.toStdString(), &glanceServer);
    request.glance_attention = glanceServer;  // a Glance server sends each word's map with the timing
  } catch (const std::exception& e) {
    Q_EMIT error(QStringLiteral("folder"), RemoteMessage(e.what()));
    return;
  }
  request.prompt = prompt.toStdString();
  request.mode = imageMode_;
  request.json_answer = json;
  request.json_schema = schema.toStdString();
  request.options = options;
  if (json) request.options.enable_thinking = false;  // the answer starts with the document
  folder.json_captions = json;
  folder.concurrency = remote.concurrency;
  const auto stop = std::make_shared<remote::RemoteRunStop>();
  // A Glance server's "glance" answer field, kept for its image until the row is written.
  struct Found {
    std::mutex m;
    std::map<std::string, CaptionInsight> byPath;
  };
  const auto found = std::make_shared<Found>();
  const Captioner captioner = remote::StopWhenServerUnusable(
      remote::MakeRemoteCaptioner(client, std::move(request),
                                  [found](const std::string& path, CaptionInsight insight) {
                                    std::lock_guard lock(found->m);
                                    found->byPath[path] = std::move(insight);
                                  }),
      stop, &cancel_);
  runFolderWith(dir, folder, captioner, [stop] { return stop->reason(); },
                [found](const std::string& path) -> std::optional<CaptionInsight> {
                  std::lock_guard lock(found->m);
                  const auto it = found->byPath.find(path);
                  if (it == found->byPath.end()) return std::nullopt;
                  CaptionInsight insight = std::move(it->second);
                  found->byPath.erase(it);
                  return insight;
                });
}

}  // namespace glance::ui
