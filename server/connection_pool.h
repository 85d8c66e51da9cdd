#pragma once
// cpp-httplib's worker pool, counting the accepted connections that wait for a worker.
// cpp-httplib 0.11 gives a worker to a connection for as long as its client keeps it alive, so
// with more busy clients than workers the extra connections wait until some client goes quiet
// for the keep-alive timeout: under steady load, never (8 of the load test's 20 clients got no
// answer in 30 s with 12 workers). While connections wait, ChatServer ends each response with
// `Connection: close`: that client reconnects and queues behind them, so connections take turns.
// Included by chat_server.cpp only (it needs httplib.h).
//
// Thread contract: enqueue/shutdown from cpp-httplib's listening thread; waiting() from any.
#include <httplib.h>

#include <atomic>
#include <functional>
#include <memory>

namespace glance::server {

class ConnectionPool : public httplib::TaskQueue {
 public:
  ConnectionPool(size_t threads, std::shared_ptr<std::atomic<int>> waiting)
      : pool_(threads), waiting_(std::move(waiting)) {}

  void enqueue(std::function<void()> fn) override {
    waiting_->fetch_add(1);
    pool_.enqueue([w = waiting_, fn = std::move(fn)] {
      w->fetch_sub(1);
      fn();
    });
  }
  void shutdown() override { pool_.shutdown(); }

 private:
  httplib::ThreadPool pool_;
  std::shared_ptr<std::atomic<int>> waiting_;  // connections accepted, no worker yet
};

}  // namespace glance::server
