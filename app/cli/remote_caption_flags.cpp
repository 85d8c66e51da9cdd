#include "app/cli/remote_caption_flags.h"

#include <cstdlib>

#include "core/remote/remote_run.h"

namespace glance::cli {

void CheckRemoteFlags(const ArgParser& p) {
  if (!p.Has("endpoint")) {
    for (const char* f : {"api-key", "remote-model", "concurrency", "timeout"})
      if (p.Has(f)) throw Error(std::string("--") + f + " is for --endpoint URL (captioning through a server)");
    return;
  }
  if (p.Get("endpoint", "").empty()) throw Error("--endpoint needs a URL (e.g. http://192.168.1.5:8080)");
  for (const char* f : {"model", "threads", "precision", "backend", "speculative", "draft-tokens"})
    if (p.Has(f))
      throw Error(std::string("--") + f + " is for a model loaded here; with --endpoint the server's model answers" +
                  (std::string(f) == "model" ? " (--remote-model NAME picks one of the server's)" : ""));
}

std::shared_ptr<const remote::RemoteClient> RemoteClientFromFlags(const ArgParser& p, const std::atomic<bool>* cancel,
                                                                  std::function<void(const std::string&)> on_retry) {
  remote::RemoteOptions o;
  o.endpoint = p.Get("endpoint", "");
  if (auto key = p.Get("api-key")) {
    if (key->empty()) throw Error("--api-key needs a key");
    o.api_key = *key;
  } else if (const char* env = std::getenv("GLANCE_API_KEY")) {
    o.api_key = env;
  }
  if (p.Has("timeout")) o.read_timeout_s = remote::ParseRemoteTimeout(p.Get("timeout", ""), "--timeout");
  o.cancel = cancel;
  o.on_retry = std::move(on_retry);
  return std::make_shared<const remote::RemoteClient>(std::move(o));
}

int ConcurrencyFlag(const ArgParser& p) {
  const std::string v = p.Get("concurrency", "1");
  int n = 0;
  try {
    size_t used = 0;
    n = std::stoi(v, &used);
    if (used != v.size()) n = 0;
  } catch (const std::exception&) {
    n = 0;
  }
  if (n < 1 || n > 64) throw Error("--concurrency: '" + v + "' is not a whole number from 1 to 64");
  return n;
}

std::string RemoteModelFromFlags(const ArgParser& p, const remote::RemoteClient& client) {
  const auto m = p.Get("remote-model");
  if (m && m->empty()) throw Error("--remote-model needs a model name");
  return remote::ResolveRemoteModel(client, m.value_or(""));
}

}  // namespace glance::cli
