#pragma once
// A small Qt-free thread pool with one primitive: ParallelFor over [0, n) split into
// contiguous ranges, one per thread (the caller's thread takes a share too, so
// `threads` = cores means no oversubscription). Highway 1.0.3 has no pool of its own.
//
// Thread contract: ParallelFor may be called from one thread at a time per pool;
// calls nest safely only by running the inner loop serially (detected, not deadlocked).
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace glance::kernels {

class ThreadPool {
 public:
  // threads <= 0 picks std::thread::hardware_concurrency().
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs fn(begin, end) over disjoint ranges covering [0, n); returns when all are done.
  // `grain` is the smallest range worth a thread.
  void ParallelFor(size_t n, const std::function<void(size_t begin, size_t end)>& fn,
                   size_t grain = 1);

 private:
  void WorkerLoop(int index);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_cv_;
  std::condition_variable done_cv_;
  const std::function<void(size_t, size_t)>* job_ = nullptr;
  size_t job_n_ = 0;
  int job_parts_ = 0;
  size_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  bool busy_ = false;
};

// Splits [0, n) into `parts` near-equal contiguous ranges; returns range i.
inline void SplitRange(size_t n, int parts, int i, size_t* begin, size_t* end) {
  const size_t base = n / static_cast<size_t>(parts), extra = n % static_cast<size_t>(parts);
  const size_t ui = static_cast<size_t>(i);
  *begin = ui * base + (ui < extra ? ui : extra);
  *end = *begin + base + (ui < extra ? 1 : 0);
}

}  // namespace glance::kernels
