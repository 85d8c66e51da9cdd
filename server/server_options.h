#pragma once
// What `glance-cli serve` (and the GUI's local-server toggle) configure: where to listen, the
// optional API key, and the limits every request is checked against before it costs anything.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "server/served_request.h"

namespace glance::server {

struct ServerLimits {
  uint64_t max_body_bytes = 32ull << 20;      // 413 above (images arrive base64 in the body)
  double max_image_megapixels = 16.0;         // 413 above, read from the image header
  int max_images = 8;                         // per request; 400 above
  int max_messages = 128;                     // per request; 400 above
  int max_tokens = 4096;                      // cap on max_tokens; 400 above
  int max_waiting = 16;                       // requests queued for the engine; 429 above
  double max_wait_s = 300.0;                  // longest wait in the queue; 503 after
  int max_conversations = 4;                  // held sessions (state snapshots) for continuation
  // Tokens one conversation may hold (Session::SetContextLimit: at least kMinContextLimit,
  // lowered to the model's own limit); 0 keeps Session's default. A request past it gets
  // 400 context_length_exceeded.
  int context_length = 0;
};

struct ServerOptions {
  std::string host = "127.0.0.1";  // loopback only unless the user says otherwise
  int port = 8080;                 // 0 = any free port (tests)
  std::string api_key;             // empty = no key; else `Authorization: Bearer KEY` on every request
  // Web pages from other sites allowed to use the server (exact origins, or "*"); pages from
  // this machine always are (request_source.h).
  std::vector<std::string> allowed_origins;
  ServerLimits limits;
  int threads = 8;                 // HTTP worker threads (requests beyond wait in the engine queue)
  // Seconds a request may take to arrive, from its first byte (plus 1 s per 64 KiB; 2 s while
  // connections wait for a worker); a slower one gets 408 and its connection is closed, so slow
  // clients cannot hold every worker (slow_client_guard.h). 0: no limit.
  double request_timeout_s = 10.0;
  // Called once per chat request that passed the API-key check, when it has been answered or
  // refused, on one of the server's worker threads (possibly several at once). Optional.
  std::function<void(const ServedRequest&)> on_served;
  // Called once for every other request, once its response is written: the model list, health,
  // CORS preflights, and requests refused before a chat request is read (401, 403, 404, 413).
  // On a worker thread, like on_served; a request log sets both. Optional.
  std::function<void(const ServedRequest&)> on_other_request;
};

}  // namespace glance::server
