#pragma once
// A small Qt-free thread pool with one primitive: ParallelFor over [0, n) split into
// contiguous ranges, one per thread (the caller's thread takes a share too, so
// `threads` = cores means no oversubscription). Highway 1.0.3 has no pool of its own.
//
// Decode issues a few hundred short ParallelFor calls per token (every projection, the
// attention and DeltaNet heads), so waking sleeping workers through the kernel each time
// (a futex + an IPI, ~10 µs in a VM) would cost milliseconds per token. Workers therefore
// spin (with pause) for a short while after each job and only then block on a condition
// variable. The ranges are claimed, not assigned: whoever is free takes the next one, the
// caller included, so a worker that is asleep or descheduled (another process on the same
// cores) delays nothing — the caller runs its range too. An idle pool costs nothing after
// kSpinMicros.
//
// Thread contract: ParallelFor may be called from one thread at a time per pool;
// calls nest safely only by running the inner loop serially (detected, not deadlocked).
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
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

  // How long a worker spins for the next job before sleeping.
  static constexpr int64_t kSpinMicros = 2000;

 private:
  void WorkerLoop();
  // Waits until the job generation differs from `seen` (spin, then sleep); returns it.
  uint64_t AwaitJob(uint64_t seen);
  // Claims and runs ranges of job `generation` until none is left.
  void RunRanges(uint64_t generation);

  std::vector<std::thread> workers_;
  // The job: written by the caller before work_ is published (release), read by a thread
  // only after it claimed a range of that generation (acquire), so never stale.
  const std::function<void(size_t, size_t)>* job_ = nullptr;
  size_t job_n_ = 0;
  // (generation << 32) | (ranges << 16) | next unclaimed range. A CAS on it claims a range;
  // a thread holding an older generation cannot claim anything of a newer job.
  std::atomic<uint64_t> work_{0};
  std::atomic<int> done_{0};       // ranges of the current job finished
  std::atomic<int> sleepers_{0};   // workers blocked (or about to block) on wake_cv_
  std::atomic<bool> stop_{false};
  std::atomic<bool> busy_{false};  // a ParallelFor is running (nested calls go serial)
  uint64_t generation_ = 0;        // caller-side count of jobs published
  std::mutex mutex_;
  std::condition_variable wake_cv_;
};

// fn(begin, end) over disjoint ranges covering [0, n): split across the pool's threads, or one
// call fn(0, n) on this thread when there is no pool (null) or it has one thread. What every
// kernel with an optional pool does; `grain` as in ThreadPool::ParallelFor.
template <class F>
void ParallelFor(ThreadPool* pool, size_t n, const F& fn, size_t grain = 1) {
  if (n == 0) return;
  if (pool && pool->threads() > 1) {
    pool->ParallelFor(n, fn, grain);
  } else {
    fn(size_t{0}, n);
  }
}

// Splits [0, n) into `parts` near-equal contiguous ranges; returns range i.
inline void SplitRange(size_t n, int parts, int i, size_t* begin, size_t* end) {
  const size_t base = n / static_cast<size_t>(parts), extra = n % static_cast<size_t>(parts);
  const size_t ui = static_cast<size_t>(i);
  *begin = ui * base + (ui < extra ? ui : extra);
  *end = *begin + base + (ui < extra ? 1 : 0);
}

}  // namespace glance::kernels
