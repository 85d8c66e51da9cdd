#pragma once
// The one thread that runs the model for the server. Requests arrive on HTTP worker threads,
// but the engine's work (vision tower, prefill, decode) always runs here: glibc gives each
// thread its own malloc arena, and a forward pass on a thread that has not run one before
// allocates and faults in its buffers afresh (measured with bench_server: a new thread per
// request cost ~11 ms more than the same request on a warm thread on the demo model).
//
// Thread contract: Run() may be called from any thread; calls run one at a time, each blocking
// its caller until done (exceptions are rethrown to the caller).
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace glance::server {

class EngineThread {
 public:
  EngineThread();
  ~EngineThread();
  EngineThread(const EngineThread&) = delete;
  EngineThread& operator=(const EngineThread&) = delete;

  void Run(const std::function<void()>& work);

 private:
  void Loop();
  std::mutex mu_;
  std::condition_variable cv_;
  std::mutex run_mu_;  // one Run() at a time
  const std::function<void()>* work_ = nullptr;
  std::exception_ptr error_;
  bool done_ = false, quit_ = false;
  std::thread thread_;
};

}  // namespace glance::server
