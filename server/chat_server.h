#pragma once
// An OpenAI-compatible HTTP server over one loaded model (issue 15): GET /v1/models,
// POST /v1/chat/completions (text + data: URL images, stream: true as server-sent events),
// GET /health. cpp-httplib (Debian's libcpp-httplib-dev) does the HTTP; it stays inside
// chat_server.cpp, so this header is all a front end needs: `glance-cli serve` and the GUI's
// "Local server" toggle start and stop the same object.
//
// Safety: binds 127.0.0.1 unless told otherwise; with an API key every request needs
// `Authorization: Bearer KEY` (401); web pages from other sites and requests through a name
// that is not this machine's are refused (403, request_source.h); the body size (413), image
// size (413), message and image counts and max_tokens (400) are checked before anything runs;
// a full queue answers 429 and a long wait 503. Every error is a JSON body, never a dropped connection or a crash.
//
// Thread contract: Start/Stop/Wait from one owning thread; requests are served on the
// server's own worker threads and take turns on the engine.
#include <memory>
#include <string>

#include "server/server_options.h"

namespace glance {
class Engine;
}

namespace glance::server {

class ChatServer {
 public:
  ChatServer(std::shared_ptr<const Engine> engine, ServerOptions options);
  ~ChatServer();  // stops
  ChatServer(const ChatServer&) = delete;
  ChatServer& operator=(const ChatServer&) = delete;

  // Binds and serves on background threads; returns the bound port (the chosen one when
  // options.port is 0). Throws glance::Error when the address cannot be bound.
  int Start();
  // Cancels running generations (within one token), refuses queued requests, closes. Idempotent.
  void Stop();
  // Blocks until Stop() is called from another thread (or a signal handler's thread).
  void Wait();
  bool running() const;
  int port() const;
  std::string url() const;  // "http://127.0.0.1:8080"
  std::string model_id() const;  // the name /v1/models lists and clients put in "model"
  // ServerLimits::context_length from each conversation's next request on; any thread.
  // Throws glance::Error below kMinContextLimit (0 = Session's default).
  void SetContextLength(int tokens);

  // For another user of the same engine in this process (the desktop app's own chat while its
  // "Local server" is on), so the two never run the model at once: null when a request holds
  // the engine now; otherwise requests wait (429/503 as for any queue) until the returned hold
  // is released. Non-blocking, so the caller can poll and honour its own Stop.
  std::shared_ptr<void> TryHoldEngine();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace glance::server
