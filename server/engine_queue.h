#pragma once
// One engine, many clients: requests take turns on it in arrival order (a FIFO of tickets, so a
// client that keeps sending cannot starve the others). Bounded: a request that finds
// `max_waiting` already queued is refused at once (429), one that waits longer than
// `max_wait_s` gives up (503), and Shutdown() releases every waiter with 503.
//
// Thread contract: every member may be called from any thread.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

namespace glance::server {

class EngineQueue {
 public:
  EngineQueue(int max_waiting, double max_wait_s) : max_waiting_(max_waiting), max_wait_s_(max_wait_s) {}

  // Holds the engine until destroyed.
  class Turn {
   public:
    Turn() = default;
    explicit Turn(EngineQueue* q) : q_(q) {}
    Turn(Turn&& o) noexcept : q_(o.q_) { o.q_ = nullptr; }
    Turn& operator=(Turn&& o) noexcept {
      if (this != &o) {
        Release();
        q_ = o.q_;
        o.q_ = nullptr;
      }
      return *this;
    }
    ~Turn() { Release(); }
    void Release();

   private:
    EngineQueue* q_ = nullptr;
  };

  // Blocks until it is this caller's turn; throws ApiError (429 queue full, 503 timeout/shutdown).
  Turn Acquire();
  // Takes the engine at once if no request holds it now (ahead of waiting requests, which then
  // wait for this turn as for any other); nullopt when it is busy or after Shutdown. For another
  // user of the same engine that must not block, such as the desktop app's own chat while its
  // local server runs: it polls, and can give up (Stop) between polls.
  std::optional<Turn> TryAcquire();
  void Shutdown();
  int waiting() const;

 private:
  void Leave();
  const int max_waiting_;
  const double max_wait_s_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<uint64_t> queue_;  // waiting tickets, oldest first
  uint64_t next_ticket_ = 0;
  bool busy_ = false;
  bool shutdown_ = false;
};

}  // namespace glance::server
