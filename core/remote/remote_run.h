#pragma once
// One remote folder run's setup, shared by glance-cli caption DIR --endpoint and the folder view's
// "Run on: an OpenAI-compatible endpoint" (issue 33), so both talk to a server the same way: the
// model to name in each request, and a server that cannot take the run (gone, or refusing the
// key) stopping it rather than failing every image left the same way.
//
// Thread contract: ResolveRemoteModel on any thread; a RemoteRunStop is shared by the captioner's
// worker threads and the thread that reads it.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "core/engine/caption_folder.h"  // Captioner
#include "core/remote/remote_client.h"

namespace glance::remote {

// `asked` (a model name), else the server's first model (GET /v1/models), else "default". Asking
// the server in either case checks, before the run, that it answers and takes the key: throws
// glance::Error in one line otherwise.
// `glance_server` (optional): set when the server's first model is owned by "glance" (a
// glance-cli serve, which answers the "glance" request field).
std::string ResolveRemoteModel(const RemoteClient& client, const std::string& asked, bool* glance_server = nullptr);

// Why a run was stopped because its server became unusable ("" while it answers).
class RemoteRunStop {
 public:
  void Set(const std::string& reason);  // the first reason is kept
  std::string reason() const;
  bool stopped() const { return !reason().empty(); }

 private:
  mutable std::mutex m_;
  std::string reason_;
};

// `inner` (a captioner of remote_captioner.h), which on ServerUnusable records the reason in
// `stop` and sets `cancel` (CaptionFolderCallbacks::cancel: no image is started after it) before
// rethrowing.
Captioner StopWhenServerUnusable(Captioner inner, std::shared_ptr<RemoteRunStop> stop, std::atomic<bool>* cancel);

// A timeout in seconds from text ("30", "2.5"): more than 0, at most 86400; throws glance::Error
// "<name>: '<text>' is not ..." otherwise.
double ParseRemoteTimeout(const std::string& text, const std::string& name);

}  // namespace glance::remote
