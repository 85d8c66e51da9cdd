#pragma once
// Closes connections whose request arrives too slowly ("slowloris", issue 35). cpp-httplib 0.11
// gives a connection one worker thread from the moment a worker takes it until it closes, and
// times out only a read that gets no byte at all for the read timeout (30 s): a client sending
// its request a byte a second held a worker for hours, and as many such clients as workers left
// every other client without an answer (measured: 4 of them, --http-threads 4, /health never
// answered).
//
// The rule: once a worker holds a connection, a request must arrive whole (its handler, or the
// server's own error response, starts) within `head_s` seconds of its first byte — `busy_head_s`
// while other connections wait for a worker — plus one second for every `min_bytes_per_s` bytes
// it has sent, so a large image on a slow link still gets through (the shape of Apache's
// mod_reqtimeout: a time limit raised by a minimum rate). A connection past it gets a 408 JSON
// error and is shut down; its worker goes on to the next connection. Not timed here: a
// connection idle between requests (httplib's keep-alive timeout closes it after 5 s) and one
// still waiting for a worker (its request may be whole; it holds nothing).
//
// Connections are known by their peer address and port, as httplib's Request gives them. The
// server's socket is found right after accept (Accepted(), on the listening thread: the one
// connected socket on the server's port not known yet) and dup()ed, so the guard's descriptor
// stays valid however httplib closes its own. Bytes received come from the kernel (TCP_INFO).
//
// Thread contract: Accepted() from the listening thread; WorkerStarted/WorkerDone from the worker
// that runs the connection; RequestStarted/ResponseSent from the worker serving a request; all
// take one mutex. A watcher thread checks every connection every 100 ms until destruction.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace glance::server {

struct SlowClientLimits {
  double head_s = 10.0;                 // from a request's first byte to its handler
  double busy_head_s = 2.0;             // the same while other connections wait for a worker
  double min_bytes_per_s = 64 * 1024;   // each this many bytes received add one second
};

class SlowClientGuard {
 public:
  // `port`: the server's listening port. `others_waiting`: whether connections wait for a worker.
  SlowClientGuard(int port, SlowClientLimits limits, std::function<bool()> others_waiting);
  ~SlowClientGuard();
  SlowClientGuard(const SlowClientGuard&) = delete;
  SlowClientGuard& operator=(const SlowClientGuard&) = delete;

  // Right after accept: remembers the new connection; returns its key for the worker calls
  // below ("" when it could not be told apart: that connection is not timed).
  std::string Accepted();
  void WorkerStarted(const std::string& key);
  void WorkerDone(const std::string& key);  // httplib has closed it: forgotten
  // Its whole request arrived (a handler or an error response starts) / its response was sent.
  void RequestStarted(const std::string& peer_addr, int peer_port);
  void ResponseSent(const std::string& peer_addr, int peer_port);

  int connections_cut() const { return cut_.load(); }
  // The deadline for a request that began `since_first_byte_s` ago and has sent `bytes` (pure,
  // for tests): true when it is past.
  static bool TooSlow(const SlowClientLimits& limits, bool others_waiting, double since_first_byte_s, double bytes);

 private:
  using Clock = std::chrono::steady_clock;
  struct Connection {
    int fd = -1;                 // our dup of the server's socket
    bool worker = false;         // a worker holds it
    bool handling = false;       // between RequestStarted and ResponseSent
    bool cut = false;
    uint64_t bytes_at_arm = 0;   // bytes received before the request being timed
    std::optional<Clock::time_point> first_byte;  // of that request, as first seen
  };
  static std::string Key(const std::string& addr, int port) { return addr + " " + std::to_string(port); }
  void Arm(Connection& c);
  void Watch();
  void Cut(Connection& c);

  const int port_;
  const SlowClientLimits limits_;
  const std::function<bool()> others_waiting_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::map<std::string, Connection> connections_;
  std::atomic<int> cut_{0};
  std::thread watcher_;
};

}  // namespace glance::server
