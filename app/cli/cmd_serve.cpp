// glance-cli serve: the loaded model behind an OpenAI-compatible HTTP API (server/chat_server.h).
// Ctrl+C or SIGTERM stops it: running answers are cancelled, queued requests refused.
#include <signal.h>

#include <cstdio>
#include <cstdlib>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "app/cli/session_flags.h"
#include "core/engine/session.h"
#include "server/chat_server.h"
#include "server/request_source.h"

namespace glance::cli {
namespace {

int Serve(const Args& args) {
  auto flags = SessionValueFlags();
  for (const char* f : {"host", "port", "api-key", "max-body-mb", "max-image-mp", "max-tokens-limit",
                        "max-waiting", "max-conversations", "context-length", "http-threads", "allow-origin", "request-timeout"})
    flags.insert(f);
  ArgParser p(args, flags, {});
  if (!p.positional().empty()) throw Error("serve takes no positional arguments (use --model DIR)");
  server::ServerOptions o;
  o.host = p.Get("host", o.host);
  const long long port = p.GetInt("port", o.port);
  if (port < 0 || port > 65535) throw Error("--port must be between 0 and 65535");
  o.port = static_cast<int>(port);
  o.allowed_origins = server::ParseAllowedOrigins(p.Get("allow-origin", ""));
  o.api_key = p.Get("api-key", std::getenv("GLANCE_API_KEY") ? std::getenv("GLANCE_API_KEY") : "");
  auto positive = [&](const char* flag, double fallback) {
    const double v = p.GetDouble(flag, fallback);
    if (!(v > 0) || v > 1e9) throw Error(std::string("--") + flag + " must be a positive number");
    return v;
  };
  o.limits.max_body_bytes = static_cast<uint64_t>(positive("max-body-mb", double(o.limits.max_body_bytes >> 20)) * (1 << 20));
  o.limits.max_image_megapixels = positive("max-image-mp", o.limits.max_image_megapixels);
  o.limits.max_tokens = static_cast<int>(positive("max-tokens-limit", o.limits.max_tokens));
  o.limits.max_waiting = static_cast<int>(positive("max-waiting", o.limits.max_waiting));
  o.limits.max_conversations = static_cast<int>(positive("max-conversations", o.limits.max_conversations));
  const long long context_length = p.GetInt("context-length", kDefaultContextLimit);
  if (context_length < kMinContextLimit || context_length > kMaxContextLimit)
    throw Error("--context-length must be between " + std::to_string(kMinContextLimit) + " and " +
                std::to_string(kMaxContextLimit) + " tokens");
  o.limits.context_length = static_cast<int>(context_length);
  o.threads = static_cast<int>(positive("http-threads", o.limits.max_waiting + 4));
  o.request_timeout_s = p.GetDouble("request-timeout", o.request_timeout_s);
  if (!(o.request_timeout_s >= 0) || o.request_timeout_s > 1e6)
    throw Error("--request-timeout must be a number of seconds (0: no limit)");
  if (!server::IsLoopbackHost(o.host))
    std::fprintf(stderr,
                 "warning: --host %s makes the model reachable from other machines%s\n", o.host.c_str(),
                 o.api_key.empty() ? " by anyone (no --api-key given)" : "; requests need the API key");

  // Signals go to this thread only (sigwait below), not to the server's workers.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto engine = LoadEngineFromFlags(p);
  server::ChatServer server(engine, o);
  server.Start();
  std::fprintf(stderr, "serving %s at %s/v1 (OpenAI-compatible; Ctrl+C stops)\n", engine->info().name.c_str(),
               server.url().c_str());
  int sig = 0;
  sigwait(&stop_signals, &sig);
  std::fprintf(stderr, "stopping\n");
  server.Stop();
  return 0;
}

Register reg("serve",
             "serve [--model DIR] [--host 127.0.0.1] [--port 8080] [--api-key KEY] [--max-body-mb 32] "
             "[--max-image-mp 16] [--max-tokens-limit 4096] [--max-waiting 16] [--max-conversations 4] "
             "[--context-length 65536] "
             "[--http-threads N] [--request-timeout 10] [--allow-origin URL,...|*] [--threads N] [--precision P]",
             "an OpenAI-compatible chat server (POST /v1/chat/completions, images as data: URLs)", Serve);

}  // namespace
}  // namespace glance::cli
