// EngineWorker and the local server: start/stop it on the loaded engine, and take turns with
// its requests (holdEngine), so the window's chat and the server never run the model at once.
#include <chrono>
#include <exception>
#include <thread>

#include "core/util/error.h"
#include "server/chat_server.h"
#include "ui/engine_worker.h"

namespace glance::ui {

void EngineWorker::startServer(const LocalServerConfig& config) {
  serverConfig_ = config;
  if (!engine_) {
    Q_EMIT error(QStringLiteral("server"), tr("Load a model first: the local server serves it."));
    Q_EMIT serverChanged(QString(), QString());
    return;
  }
  server_.reset();
  try {
    server::ServerOptions options = config.ToServerOptions();
    options.limits.context_length = contextLimit_;  // the "context_length" setting, as for the window's chats
    // Every request, for the server panel's log; called on the server's threads (the signal is
    // queued to the GUI). The server is stopped before this worker goes, so `this` outlives it.
    options.on_served = [this](const server::ServedRequest& r) { Q_EMIT requestServed(r); };
    options.on_other_request = options.on_served;
    auto s = std::make_unique<server::ChatServer>(engine_, options);
    try {
      s->Start();
    } catch (const Error&) {
      if (config.port == 0) throw;
      // The port is taken (another server, a second window): any free one, and the status
      // bar and the panel show which.
      options.port = 0;
      s = std::make_unique<server::ChatServer>(engine_, options);
      s->Start();
    }
    server_ = std::move(s);
    Q_EMIT serverChanged(Q(server_->url()), Q(server_->model_id()));
  } catch (const std::exception& e) {
    Q_EMIT error(QStringLiteral("server"), QString::fromUtf8(e.what()));
    Q_EMIT serverChanged(QString(), QString());
  }
}

void EngineWorker::stopServer() {
  server_.reset();  // ChatServer's destructor stops it: running requests end within a token
  Q_EMIT serverChanged(QString(), QString());
}

void EngineWorker::restartServer() { startServer(serverConfig_); }

std::shared_ptr<void> EngineWorker::holdEngine() {
  if (!server_) return nullptr;
  bool told = false;
  for (;;) {
    if (std::shared_ptr<void> hold = server_->TryHoldEngine()) return hold;
    if (cancel_.load()) throw Cancelled();
    if (!told) Q_EMIT waitingForServer();
    told = true;
    // Polling keeps Stop working; a request ends within this much of its last token.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace glance::ui
