#include "core/remote/remote_run.h"

#include <cmath>
#include <exception>

#include "core/util/error.h"

namespace glance::remote {

std::string ResolveRemoteModel(const RemoteClient& client, const std::string& asked, bool* glance_server) {
  std::string owner;
  const std::string first = client.FirstModel(&owner);  // reachable, and the key taken, before the run
  if (glance_server) *glance_server = owner == "glance";
  if (!asked.empty()) return asked;
  return first.empty() ? "default" : first;
}

void RemoteRunStop::Set(const std::string& reason) {
  std::lock_guard lock(m_);
  if (reason_.empty()) reason_ = reason;
}

std::string RemoteRunStop::reason() const {
  std::lock_guard lock(m_);
  return reason_;
}

Captioner StopWhenServerUnusable(Captioner inner, std::shared_ptr<RemoteRunStop> stop, std::atomic<bool>* cancel) {
  return [inner = std::move(inner), stop = std::move(stop), cancel](const std::string& path) {
    try {
      return inner(path);
    } catch (const ServerUnusable& e) {
      stop->Set(e.what());
      if (cancel) cancel->store(true);
      throw;
    }
  };
}

double ParseRemoteTimeout(const std::string& text, const std::string& name) {
  double v = 0.0;
  try {
    size_t used = 0;
    v = std::stod(text, &used);
    if (used != text.size()) v = 0.0;
  } catch (const std::exception&) {
    v = 0.0;
  }
  if (!std::isfinite(v) || v <= 0.0 || v > 86400.0)
    throw Error(name + ": '" + text + "' is not a number of seconds above 0 and at most 86400");
  return v;
}

}  // namespace glance::remote
