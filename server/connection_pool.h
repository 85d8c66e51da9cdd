#pragma once
// cpp-httplib's worker pool, counting the accepted connections that wait for a worker.
// cpp-httplib 0.11 gives a worker to a connection for as long as its client keeps it alive, so
// with more busy clients than workers the extra connections wait until some client goes quiet
// for the keep-alive timeout: under steady load, never (8 of the load test's 20 clients got no
// answer in 30 s with 12 workers). While connections wait, ChatServer ends each response with
// `Connection: close`: that client reconnects and queues behind them, so connections take turns.
// It also tells the SlowClientGuard (when there is one) which connection each worker holds.
// Included by chat_server.cpp only (it needs httplib.h).
//
// Thread contract: enqueue/shutdown from cpp-httplib's listening thread; waiting() from any.
#include <httplib.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "server/slow_client_guard.h"

namespace glance::server {

class ConnectionPool : public httplib::TaskQueue {
 public:
  ConnectionPool(size_t threads, std::shared_ptr<std::atomic<int>> waiting, std::shared_ptr<SlowClientGuard> guard)
      : pool_(threads), waiting_(std::move(waiting)), guard_(std::move(guard)) {}

  // Called on the listening thread right after accept(), with the task that serves the new
  // connection (httplib's process_and_close_socket).
  void enqueue(std::function<void()> fn) override {
    waiting_->fetch_add(1);
    std::string key = guard_ ? guard_->Accepted() : std::string();
    pool_.enqueue([w = waiting_, g = guard_, key = std::move(key), fn = std::move(fn)] {
      w->fetch_sub(1);
      if (g) g->WorkerStarted(key);
      fn();
      if (g) g->WorkerDone(key);
    });
  }
  void shutdown() override { pool_.shutdown(); }

 private:
  httplib::ThreadPool pool_;
  std::shared_ptr<std::atomic<int>> waiting_;  // connections accepted, no worker yet
  std::shared_ptr<SlowClientGuard> guard_;     // null when requests are not timed
};

}  // namespace glance::server
