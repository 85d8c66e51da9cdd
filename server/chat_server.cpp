#include "server/chat_server.h"

#include <httplib.h>

#include <atomic>
#include <ctime>
#include <thread>

#include "core/engine/engine.h"
#include "core/util/error.h"
#include "server/api_error.h"
#include "server/chat_request.h"
#include "server/chat_service.h"
#include "server/openai_json.h"

namespace glance::server {

using nlohmann::json;

bool IsLoopbackHost(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

struct ChatServer::Impl {
  ServerOptions options;
  ChatService service;
  httplib::Server http;
  std::thread thread;
  std::atomic<bool> stopping{false};
  std::atomic<uint64_t> next_id{0};
  int port = 0;
  bool started = false;

  Impl(std::shared_ptr<const Engine> engine, ServerOptions o)
      : options(std::move(o)), service(std::move(engine), options.limits) {}

  static void SendError(httplib::Response& res, const ApiError& e) {
    res.status = e.status();
    res.set_content(ErrorBody(e), "application/json");
  }

  ResponseIds NewIds() {
    return {"chatcmpl-glance-" + std::to_string(std::time(nullptr)) + "-" + std::to_string(next_id++),
            static_cast<int64_t>(std::time(nullptr)), service.model_id()};
  }

  bool Authorized(const httplib::Request& req) const {
    if (options.api_key.empty()) return true;
    const std::string want = "Bearer " + options.api_key;
    const std::string got = req.get_header_value("Authorization");
    // Constant-time compare: the key is a secret.
    if (got.size() != want.size()) return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < got.size(); ++i) diff |= static_cast<unsigned char>(got[i] ^ want[i]);
    return diff == 0;
  }

  void Routes() {
    http.set_payload_max_length(options.limits.max_body_bytes);
    http.set_read_timeout(30, 0);
    http.set_write_timeout(30, 0);
    http.set_keep_alive_timeout(5);
    // httplib closes a kept-alive connection after 5 requests by default; a client sending its
    // next request as that close arrives sees no response at all (seen in the load test).
    http.set_keep_alive_max_count(100000);
    // Each SSE chunk is one small write: without TCP_NODELAY, Nagle's algorithm holds it back
    // waiting for the client's delayed ACK, adding tens of milliseconds per token.
    http.set_tcp_nodelay(true);
    const int threads = std::max(2, options.threads);
    http.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };

    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      if (Authorized(req)) return httplib::Server::HandlerResponse::Unhandled;
      SendError(res, ApiError(401, "invalid_api_key", "missing or wrong API key (send Authorization: Bearer KEY)"));
      res.set_header("WWW-Authenticate", "Bearer");
      return httplib::Server::HandlerResponse::Handled;
    });
    // Errors httplib raises itself (413 body too large, 404, 400 malformed HTTP) get a JSON body too.
    http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return;
      std::string msg = "HTTP " + std::to_string(res.status);
      if (res.status == 404) msg = "no such endpoint: " + req.method + " " + req.path;
      if (res.status == 413) msg = "the request body is larger than this server accepts";
      if (res.status == 405) msg = "method not allowed";
      res.set_content(ErrorBody(res.status, res.status == 413 ? "request_too_large" : "invalid_request_error", msg),
                      "application/json");
    });
    http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
      std::string what = "internal error";
      try {
        std::rethrow_exception(ep);
      } catch (const std::exception& e) {
        what = std::string("internal error: ") + e.what();
      } catch (...) {
      }
      res.status = 500;
      res.set_content(ErrorBody(500, "server_error", what), "application/json");
    });

    http.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(json{{"status", "ok"}, {"model", service.model_id()}, {"waiting", service.waiting()}}.dump(),
                      "application/json");
    });
    http.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(ModelsJson(service.model_id(), 0).dump(), "application/json");
    });
    http.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
      try {
        Complete(req, res);
      } catch (const ApiError& e) {
        SendError(res, e);
      } catch (const Error& e) {
        SendError(res, BadRequest(e.what()));
      }
    });
  }

  void Complete(const httplib::Request& req, httplib::Response& res) {
    const ChatRequest request = ParseChatRequest(req.body, options.limits);
    std::shared_ptr<ChatService::Job> job = service.Prepare(request);  // waits its turn; 4xx/503 before output
    const ResponseIds ids = NewIds();
    if (!request.stream) {
      CompletionCallbacks cb;
      cb.client_alive = [this] { return !stopping.load(); };
      const Completion c = job->Run(cb);
      res.set_content(CompletionJson(ids, c, request.attention).dump(-1, ' ', false, json::error_handler_t::replace),
                      "application/json");
      return;
    }
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");
    const bool attention = request.attention, include_usage = request.include_usage;
    res.set_chunked_content_provider(
        "text/event-stream",
        [this, job, ids, attention, include_usage](size_t, httplib::DataSink& sink) mutable {
          bool ok = true;
          auto send = [&](const std::string& event) {
            if (ok && !sink.write(event.data(), event.size())) ok = false;
          };
          send(SseEvent(ChunkJson(ids, {{"role", "assistant"}, {"content", ""}}, nullptr)));
          CompletionCallbacks cb;
          cb.on_delta = [&](const std::string& d) { send(SseEvent(ChunkJson(ids, {{"content", d}}, nullptr))); };
          // A client that closed its connection stops the generation before the next token.
          cb.client_alive = [&] { return ok && !stopping.load() && sink.is_writable(); };
          try {
            const Completion c = job->Run(cb);
            json last = ChunkJson(ids, json::object(), c.finish_reason);
            last["glance"] = GlanceJson(c, attention);
            send(SseEvent(last));
            if (include_usage) {
              json usage = ChunkJson(ids, json::object(), nullptr);
              usage["choices"] = json::array();
              usage["usage"] = UsageJson(c);
              send(SseEvent(usage));
            }
          } catch (const ApiError& e) {
            send("data: " + ErrorBody(e) + "\n\n");
          }
          send("data: [DONE]\n\n");
          job.reset();  // frees the engine for the next request now
          if (ok) sink.done();
          return ok;
        });
  }
};

ChatServer::ChatServer(std::shared_ptr<const Engine> engine, ServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(engine), std::move(options))) {
  impl_->Routes();
}

ChatServer::~ChatServer() { Stop(); }

int ChatServer::Start() {
  if (impl_->started) return impl_->port;
  auto& im = *impl_;
  if (im.options.port == 0) {
    im.port = im.http.bind_to_any_port(im.options.host);
    if (im.port <= 0) throw Error("cannot listen on " + im.options.host + " (any port)");
  } else {
    if (!im.http.bind_to_port(im.options.host, im.options.port))
      throw Error("cannot listen on " + im.options.host + ":" + std::to_string(im.options.port) +
                  " (in use? try --port)");
    im.port = im.options.port;
  }
  im.started = true;
  im.thread = std::thread([&im] { im.http.listen_after_bind(); });
  return im.port;
}

void ChatServer::Stop() {
  auto& im = *impl_;
  if (!im.started) return;
  im.stopping = true;
  im.service.Shutdown();
  im.http.stop();
  if (im.thread.joinable()) im.thread.join();
  im.started = false;
}

void ChatServer::Wait() {
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::shared_ptr<void> ChatServer::TryHoldEngine() {
  std::optional<EngineQueue::Turn> turn = impl_->service.queue().TryAcquire();
  if (!turn) return nullptr;
  return std::make_shared<EngineQueue::Turn>(std::move(*turn));
}

bool ChatServer::running() const { return impl_->started && impl_->http.is_running(); }
int ChatServer::port() const { return impl_->port; }
std::string ChatServer::url() const {
  const std::string& h = impl_->options.host;
  return "http://" + (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" + std::to_string(impl_->port);
}

}  // namespace glance::server
