#pragma once
// Talking to an OpenAI-compatible server (another machine's `glance-cli serve`, llama.cpp's
// server, LM Studio, vLLM) for glance-cli caption DIR --endpoint URL (issue 33).
//
// The URL is the server's root, with or without /v1 (http://host:8080, http://host:8080/v1,
// https://host/some/prefix/v1/): requests go to <root>/v1/chat/completions and <root>/v1/models.
// A request the server is too busy for (429, 502, 503, 504) or that never got an answer (refused
// or dropped connection, timeout) is tried again after a pause that doubles each time (with
// jitter, so many workers do not retry in step), or after the Retry-After the server asked for,
// up to RetryPolicy::max_tries; then it fails with one line saying why. Any other status fails at
// once with the server's own error message.
//
// Thread contract: a RemoteClient is immutable after construction; any number of threads may
// call PostChat at once (each request has its own connection).
#include <atomic>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/util/error.h"

namespace glance::remote {

// The server can take no request of this run: every try of one went unanswered (refused or
// dropped connections, timeouts: down or gone, not busy), or it refused the API key (401/403).
// A folder run stops handing out images then, rather than failing each image left the same way.
class ServerUnusable : public Error {
 public:
  using Error::Error;
};

// The parts of --endpoint URL; throws glance::Error "--endpoint URL: ..." for anything but an
// http:// or https:// URL with a host (and an optional port and path).
struct EndpointUrl {
  std::string origin;  // scheme://host[:port]
  std::string prefix;  // the path before /v1 ("" or "/some/prefix")
  std::string ChatUrl() const { return origin + prefix + "/v1/chat/completions"; }
};
EndpointUrl ParseEndpointUrl(const std::string& url);

struct RetryPolicy {
  int max_tries = 6;              // requests per image, the first included
  double first_pause_s = 0.5;     // before the second try; doubled for each one after
  double max_pause_s = 30.0;      // no pause longer, nor a Retry-After
};

// The pause before try `next_try` (2, 3, ...): the server's Retry-After seconds when it sent
// one, else the doubling pause; never above max_pause_s. `jitter` in [0, 1) spreads it by up to
// a quarter either way.
double RetryPause(const RetryPolicy& policy, int next_try, double retry_after_s, double jitter);

struct RemoteOptions {
  std::string endpoint;  // --endpoint URL
  std::string api_key;   // sent as Authorization: Bearer; "" for none
  RetryPolicy retry;
  double connect_timeout_s = 10.0;
  // How long one request waits for the answer (--timeout): a long caption on a slow server. A
  // request not answered in time counts as a lost connection (tried again as above), and says
  // "nothing came within N s: --timeout".
  double read_timeout_s = 600.0;
  // Set (Ctrl+C): a pause between tries ends and the request fails with "stopped".
  const std::atomic<bool>* cancel = nullptr;
  // Each retry, one line ("429 Too Many Requests; trying again in 2.0 s (try 2 of 6)"). Optional;
  // called on the thread that made the request.
  std::function<void(const std::string&)> on_retry;
};

class RemoteClient {
 public:
  explicit RemoteClient(RemoteOptions options);  // checks the URL (ParseEndpointUrl)

  // The first model of GET /v1/models, or "" when the server lists none (no such route, an
  // empty list). Throws glance::Error in one line for a server that cannot be reached or that
  // refuses the key (401/403), so a run with a wrong URL or key stops before it starts.
  // `owned_by` (optional): that model's owned_by ("glance" for a glance-cli serve).
  std::string FirstModel(std::string* owned_by = nullptr) const;

  // POST /v1/chat/completions with `body`, retried as above; the answer's JSON. Throws
  // glance::Error in one line: the status and the server's message, a body that is not JSON;
  // ServerUnusable when no try got an answer or the key is refused.
  nlohmann::json PostChat(const std::string& body) const;

  const EndpointUrl& url() const { return url_; }

 private:
  RemoteOptions options_;
  EndpointUrl url_;
};

}  // namespace glance::remote
