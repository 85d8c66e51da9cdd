#include "server/chat_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <thread>
#include <utility>

#include "core/engine/engine.h"
#include "core/util/error.h"
#include "server/api_error.h"
#include "server/chat_request.h"
#include "server/chat_service.h"
#include "server/client_connection.h"
#include "server/connection_pool.h"
#include "server/request_source.h"
#include "server/slow_client_guard.h"
#include "server/tool_call_stream.h"
#include "server/openai_json.h"
#include "server/responses_json.h"
#include "server/responses_request.h"

namespace glance::server {

using nlohmann::json;

// Hands one chat request's ServedRequest to ServerOptions::on_served when the last holder
// (the handler, or a streamed response's content provider) lets go of it.
struct ServedReport {
  const std::function<void(const ServedRequest&)>& sink;
  ServedRequest r;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  explicit ServedReport(const std::function<void(const ServedRequest&)>& s) : sink(s) {}
  ServedReport(const ServedReport&) = delete;
  ServedReport& operator=(const ServedReport&) = delete;
  void Finished(const Completion& c) {
    r.finish_reason = c.finish_reason;
    r.prompt_tokens = c.prompt_tokens;
    r.completion_tokens = c.completion_tokens;
  }
  ~ServedReport() {
    if (!sink) return;
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    try {
      sink(r);
    } catch (...) {  // a front end's logging must not take the server down
    }
  }
};

namespace {
// The request this HTTP worker thread is handling; its routing, handler and the logger that
// follows its response all run on this thread. Whether a chat handler reports it (on_served),
// and when its routing began (for on_other_request's duration).
thread_local bool tls_chat_reported = false;
thread_local std::chrono::steady_clock::time_point tls_routed{};

std::shared_ptr<ServedReport> ChatReport(const std::function<void(const ServedRequest&)>& sink,
                                         const httplib::Request& req) {
  tls_chat_reported = true;
  auto report = std::make_shared<ServedReport>(sink);
  report->r.method = req.method;
  report->r.path = req.path;
  return report;
}
}  // namespace

struct ChatServer::Impl {
  ServerOptions options;
  ChatService service;
  httplib::Server http;
  std::thread thread;
  std::atomic<bool> listen_returned{false};  // the listening thread is done (or never listened)
  std::atomic<bool> stopping{false};
  std::atomic<uint64_t> next_id{0};
  ResponseStore responses;  // /v1/responses conversations, for previous_response_id
  // Connections accepted that wait for an HTTP worker (ConnectionPool counts them).
  std::shared_ptr<std::atomic<int>> waiting_connections = std::make_shared<std::atomic<int>>(0);
  // Times each request's arrival (null when options.request_timeout_s is 0); made in Start(),
  // once the port is known.
  std::shared_ptr<SlowClientGuard> guard;
  int listen_fd = -1;
  int port = 0;
  bool started = false;

  RequestSourcePolicy source_policy;

  Impl(std::shared_ptr<const Engine> engine, ServerOptions o)
      : options(std::move(o)), service(std::move(engine), options.limits) {
    source_policy.bound_to_loopback = IsLoopbackHost(options.host);
    source_policy.allowed_origins = options.allowed_origins;
  }

  static void SendError(httplib::Response& res, const ApiError& e) {
    res.status = e.status();
    res.set_content(ErrorBody(e), "application/json");
  }

  void RequestArrived(const httplib::Request& req) {
    if (guard) guard->RequestStarted(req.remote_addr, req.remote_port);
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
    // A connection is closed after a response that says `Connection: close` (so the client
    // never sends on a closing connection): when other connections wait for a worker (below),
    // not after a fixed count (httplib's default is 5).
    http.set_keep_alive_max_count(1000000);
    // Each SSE chunk is one small write: without TCP_NODELAY, Nagle's algorithm holds it back
    // waiting for the client's delayed ACK, adding tens of milliseconds per token.
    http.set_tcp_nodelay(true);
    // The listening socket: SO_REUSEADDR (restart right after a stop) but not httplib's default
    // SO_REUSEPORT, with which a second server on the same port would start and take half the
    // connections; the socket is kept to raise its backlog once bound (Start).
    http.set_socket_options([this](int sock) {
      const int yes = 1;
      ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
      listen_fd = sock;
    });
    const int threads = std::max(2, options.threads);
    http.new_task_queue = [this, threads] {
      return new ConnectionPool(static_cast<size_t>(threads), waiting_connections, guard);
    };
    http.set_post_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      RequestArrived(req);  // a response about to be written: the request is no longer timed
      // A page from this machine (or an allowed site) may read the answer: CORS.
      const std::string origin = req.get_header_value("Origin");
      if (!origin.empty() && OriginAllowed(origin, source_policy)) {
        res.set_header("Access-Control-Allow-Origin", origin);
        res.set_header("Vary", "Origin");
      }
      if (waiting_connections->load() <= 0) return;
      res.headers.erase("Keep-Alive");
      res.set_header("Connection", "close");  // this client reconnects behind the waiting ones
    });

    // Called once a response has been written (a streamed one included): the connection's next
    // request is timed from its first byte.
    http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
      if (guard) guard->ResponseSent(req.remote_addr, req.remote_port);
      const bool chat = std::exchange(tls_chat_reported, false);
      const auto routed = std::exchange(tls_routed, {});
      if (chat || !options.on_other_request) return;
      ServedRequest r;
      r.method = req.method;
      r.path = req.path;
      r.status = res.status;
      if (routed != std::chrono::steady_clock::time_point{})
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - routed).count();
      try {
        options.on_other_request(r);
      } catch (...) {  // a front end's logging must not take the server down
      }
    });

    http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      tls_routed = std::chrono::steady_clock::now();
      tls_chat_reported = false;
      // Where the request comes from, before the key: a browser's preflight carries no key.
      if (const auto refused =
              CheckRequestSource(req.get_header_value("Host"), req.get_header_value("Origin"), source_policy)) {
        SendError(res, *refused);
        return httplib::Server::HandlerResponse::Handled;
      }
      if (req.method == "OPTIONS") {  // CORS preflight (the origin passed above)
        res.status = 204;
        res.set_header("Allow", "GET, POST, OPTIONS");
        res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
        res.set_header("Access-Control-Allow-Headers", "Authorization, Content-Type");
        res.set_header("Access-Control-Max-Age", "600");
        return httplib::Server::HandlerResponse::Handled;
      }
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
    http.Post("/v1/responses", [this](const httplib::Request& req, httplib::Response& res) {
      RequestArrived(req);  // a generation may take minutes: not a slow client
      auto report = ChatReport(options.on_served, req);
      try {
        Respond(req, res, report);
      } catch (const ApiError& e) {
        report->r.status = e.status();
        SendError(res, e);
      } catch (const Error& e) {
        report->r.status = 400;
        SendError(res, BadRequest(e.what()));
      }
    });
    http.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
      RequestArrived(req);  // a generation may take minutes: not a slow client
      auto report = ChatReport(options.on_served, req);
      try {
        Complete(req, res, report);
      } catch (const ApiError& e) {
        report->r.status = e.status();
        SendError(res, e);
      } catch (const Error& e) {
        report->r.status = 400;
        SendError(res, BadRequest(e.what()));
      }
    });
  }

  // POST /v1/responses (server/responses_request.h): the same engine, queue and held
  // conversations as chat completions, answered in the Responses API's shapes.
  void Respond(const httplib::Request& req, httplib::Response& res, const std::shared_ptr<ServedReport>& report) {
    const ResponsesRequest request = ParseResponsesRequest(req.body, options.limits, responses);
    report->r.stream = request.chat.stream;
    const ClientConnection conn =
        ClientConnection::Find(req.local_addr, req.local_port, req.remote_addr, req.remote_port);
    std::shared_ptr<ChatService::Job> job = service.Prepare(request.chat);  // waits its turn; 4xx/503 before output
    const ResponseIds chat_ids = NewIds();
    const std::string n = chat_ids.id.substr(std::string("chatcmpl-glance-").size());
    const ResponseObjectIds ids{"resp_glance_" + n, "msg_glance_" + n, chat_ids.created, chat_ids.model};
    // A finished response is held for previous_response_id: its conversation and answer.
    auto hold = [this, ids](const ResponsesRequest& r, const Completion& c) {
      if (c.finish_reason == "cancelled") return;
      nlohmann::ordered_json messages = r.messages;
      messages.push_back({{"role", "assistant"}, {"content", c.text}});
      if (!c.tool_calls.empty())
        messages.back()["tool_calls"] = nlohmann::ordered_json::parse(ToolCallsJson(c.tool_calls, c.tool_call_ids).dump());
      responses.Put(ids.id, std::move(messages));
    };
    if (!request.chat.stream) {
      CompletionCallbacks cb;
      cb.client_alive = [this, conn, report] {
        if (conn.Closed()) report->r.client_gone = true;
        return !report->r.client_gone && !stopping.load();
      };
      const Completion c = job->Run(cb);
      report->Finished(c);
      hold(request, c);
      res.set_content(ResponseObject(ids, request, &c).dump(-1, ' ', false, json::error_handler_t::replace),
                      "application/json");
      return;
    }
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");
    res.set_chunked_content_provider(
        "text/event-stream", [this, job, ids, request, conn, report, hold](size_t, httplib::DataSink& sink) mutable {
          bool ok = true;
          int seq = 0;
          auto send = [&](nlohmann::ordered_json event) {
            const std::string text = ResponseEvent(std::move(event), seq);
            if (ok && !sink.write(text.data(), text.size())) ok = false;
          };
          using ojson = nlohmann::ordered_json;
          const ojson where = {{"item_id", ids.item_id}, {"output_index", 0}, {"content_index", 0}};
          auto at = [&](ojson e) {
            for (const auto& [k, v] : where.items()) e[k] = v;
            return e;
          };
          send({{"type", "response.created"}, {"response", ResponseObject(ids, request, nullptr)}});
          send({{"type", "response.in_progress"}, {"response", ResponseObject(ids, request, nullptr)}});
          // The message item is announced with its first text (an answer of only calls has none).
          bool announced = false;
          auto announce = [&] {
            if (std::exchange(announced, true)) return;
            send({{"type", "response.output_item.added"}, {"output_index", 0}, {"item", OutputMessage(ids, nullptr, "in_progress")}});
            const ojson empty_part = {{"type", "output_text"}, {"text", ""}, {"annotations", ojson::array()}};
            send(at({{"type", "response.content_part.added"}, {"part", empty_part}}));
          };
          CompletionCallbacks cb;
          cb.on_delta = [&](const std::string& d, const json&) {
            announce();
            send(at({{"type", "response.output_text.delta"}, {"delta", d}}));
          };
          cb.client_alive = [&] {
            if (!ok || conn.Closed()) report->r.client_gone = true;
            return !report->r.client_gone && !stopping.load();
          };
          try {
            const Completion c = job->Run(cb);
            report->Finished(c);
            hold(request, c);
            const ojson whole = ResponseObject(ids, request, &c);
            const bool message = HasMessageItem(c);
            if (message) {
              announce();
              const ojson item = whole["output"][0];
              send(at({{"type", "response.output_text.done"}, {"text", c.text}}));
              send(at({{"type", "response.content_part.done"}, {"part", item["content"][0]}}));
              send({{"type", "response.output_item.done"}, {"output_index", 0}, {"item", item}});
            }
            // Each call: its item, its arguments in pieces, then the item done.
            for (size_t i = 0; i < c.tool_calls.size(); ++i) {
              const int index = static_cast<int>(i) + (message ? 1 : 0);
              const std::string item_id = FunctionCallItemId(ids, i);
              send({{"type", "response.output_item.added"}, {"output_index", index}, {"item", FunctionCallItem(ids, c, i, "in_progress")}});
              for (const std::string& piece : ArgumentPieces(c.tool_calls[i].arguments))
                send({{"type", "response.function_call_arguments.delta"}, {"item_id", item_id}, {"output_index", index}, {"delta", piece}});
              send({{"type", "response.function_call_arguments.done"}, {"item_id", item_id}, {"output_index", index},
                    {"arguments", c.tool_calls[i].arguments}});
              send({{"type", "response.output_item.done"}, {"output_index", index}, {"item", whole["output"][static_cast<size_t>(index)]}});
            }
            send({{"type", whole["status"] == "incomplete" ? "response.incomplete" : "response.completed"}, {"response", whole}});
          } catch (const ApiError& e) {
            report->r.status = e.status();
            send({{"type", "error"}, {"code", e.type()}, {"message", e.what()}, {"param", e.param()}});
          }
          job.reset();  // frees the engine for the next request now
          if (ok) sink.done();
          return ok;
        });
  }

  void Complete(const httplib::Request& req, httplib::Response& res, const std::shared_ptr<ServedReport>& report) {
    const ChatRequest request = ParseChatRequest(req.body, options.limits);
    report->r.stream = request.stream;
    // The client's socket, asked after every token whether the client is still there.
    const ClientConnection conn =
        ClientConnection::Find(req.local_addr, req.local_port, req.remote_addr, req.remote_port);
    std::shared_ptr<ChatService::Job> job = service.Prepare(request);  // waits its turn; 4xx/503 before output
    const ResponseIds ids = NewIds();
    if (!request.stream) {
      CompletionCallbacks cb;
      cb.client_alive = [this, conn, report] {
        if (conn.Closed()) report->r.client_gone = true;
        return !report->r.client_gone && !stopping.load();
      };
      const Completion c = job->Run(cb);
      report->Finished(c);
      res.set_content(CompletionJson(ids, c, request.attention).dump(-1, ' ', false, json::error_handler_t::replace),
                      "application/json");
      return;
    }
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");
    const bool attention = request.attention, include_usage = request.include_usage;
    res.set_chunked_content_provider(
        "text/event-stream",
        [this, job, ids, attention, include_usage, conn, report](size_t, httplib::DataSink& sink) mutable {
          bool ok = true;
          auto send = [&](const std::string& event) {
            if (ok && !sink.write(event.data(), event.size())) ok = false;
          };
          send(SseEvent(ChunkJson(ids, {{"role", "assistant"}, {"content", ""}}, nullptr)));
          CompletionCallbacks cb;
          cb.on_delta = [&](const std::string& d, const json& logprobs) {
            send(SseEvent(ChunkJson(ids, {{"content", d}}, nullptr, logprobs)));
          };
          // A client that closed its connection stops the generation before the next token.
          cb.client_alive = [&] {
            if (!ok || conn.Closed()) report->r.client_gone = true;
            return !report->r.client_gone && !stopping.load();
          };
          try {
            const Completion c = job->Run(cb);
            report->Finished(c);
            for (const json& delta : ToolCallDeltas(c.tool_calls, c.tool_call_ids))
              send(SseEvent(ChunkJson(ids, delta, nullptr)));
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
            report->r.status = e.status();
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
  // Debian's cpp-httplib listens with a backlog of 5: when more clients connect at once than
  // the listening thread has accepted, the kernel drops the rest's handshakes (ListenOverflows
  // in /proc/net/netstat: 33 in a 120 s run of the 20-client load test without this line, 0
  // with it) and those clients wait for a retransmitted handshake. That delays them; it was
  // credited with the load test's lost responses (about 1 in 2,000), but on Linux 6.18 a run
  // without this line lost none of 24,133 requests (docs/testing.md, issue 35). listen() again
  // on a listening socket only sets its backlog.
  if (im.listen_fd >= 0) ::listen(im.listen_fd, SOMAXCONN);
  if (im.options.request_timeout_s > 0) {
    SlowClientLimits limits;
    limits.head_s = im.options.request_timeout_s;
    limits.busy_head_s = std::min(limits.busy_head_s, limits.head_s);
    im.guard = std::make_shared<SlowClientGuard>(im.port, limits,
                                                 [w = im.waiting_connections] { return w->load() > 0; });
  }
  im.started = true;
  im.listen_returned = false;
  im.thread = std::thread([&im] {
    im.http.listen_after_bind();
    im.listen_returned = true;
  });
  return im.port;
}

void ChatServer::Stop() {
  auto& im = *impl_;
  if (!im.started) return;
  im.stopping = true;
  im.service.Shutdown();
  // httplib's stop() does nothing until the thread has begun listening: stopped right after
  // Start() (a toggle on and off at once), the thread went on listening and the join below
  // waited for ever (issue 35, app_soak). Wait for it to listen (or to have given up) first.
  while (!im.http.is_running() && !im.listen_returned) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  im.http.stop();
  if (im.thread.joinable()) im.thread.join();
  im.guard.reset();
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
std::string ChatServer::model_id() const { return impl_->service.model_id(); }
void ChatServer::SetContextLength(int tokens) { impl_->service.SetContextLength(tokens); }
std::string ChatServer::url() const {
  const std::string& h = impl_->options.host;
  return "http://" + (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" + std::to_string(impl_->port);
}

}  // namespace glance::server
