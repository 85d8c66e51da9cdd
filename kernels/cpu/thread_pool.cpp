#include "kernels/cpu/thread_pool.h"

#include <algorithm>

namespace glance::kernels {

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::WorkerLoop(int index) {
  size_t seen = 0;
  for (;;) {
    const std::function<void(size_t, size_t)>* job;
    size_t n;
    int parts;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
      n = job_n_;
      parts = job_parts_;
    }
    if (index < parts) {
      size_t b, e;
      SplitRange(n, parts, index, &b, &e);
      if (b < e) (*job)(b, e);
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }
}

void ThreadPool::ParallelFor(size_t n, const std::function<void(size_t, size_t)>& fn,
                             size_t grain) {
  if (n == 0) return;
  grain = std::max<size_t>(grain, 1);
  const int parts = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads()),
                                                      (n + grain - 1) / grain));
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (parts <= 1 || busy_ || workers_.empty()) {
      lock.unlock();
      fn(0, n);  // serial: small job, single thread, or a nested call
      return;
    }
    busy_ = true;
    job_ = &fn;
    job_n_ = n;
    job_parts_ = parts;
    pending_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  start_cv_.notify_all();
  size_t b, e;
  SplitRange(n, parts, 0, &b, &e);
  fn(b, e);
  std::unique_lock<std::mutex> lock(mutex_);
  done_cv_.wait(lock, [&] { return pending_ == 0; });
  busy_ = false;
  job_ = nullptr;
}

}  // namespace glance::kernels
