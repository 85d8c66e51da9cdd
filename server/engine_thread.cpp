#include "server/engine_thread.h"

namespace glance::server {

EngineThread::EngineThread() : thread_([this] { Loop(); }) {}

EngineThread::~EngineThread() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    quit_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void EngineThread::Run(const std::function<void()>& work) {
  std::lock_guard<std::mutex> one_at_a_time(run_mu_);
  std::unique_lock<std::mutex> lock(mu_);
  work_ = &work;
  done_ = false;
  error_ = nullptr;
  cv_.notify_all();
  cv_.wait(lock, [&] { return done_; });
  if (error_) std::rethrow_exception(error_);
}

void EngineThread::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return quit_ || work_; });
    if (quit_) return;
    const std::function<void()>* work = work_;
    work_ = nullptr;
    lock.unlock();
    std::exception_ptr error;
    try {
      (*work)();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    error_ = error;
    done_ = true;
    cv_.notify_all();
  }
}

}  // namespace glance::server
