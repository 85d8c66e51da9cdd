#include "kernels/cpu/thread_pool.h"

#include <algorithm>
#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define GLANCE_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define GLANCE_CPU_RELAX() asm volatile("yield")
#else
#define GLANCE_CPU_RELAX() ((void)0)
#endif

namespace glance::kernels {

namespace {
using Clock = std::chrono::steady_clock;

uint64_t GenerationOf(uint64_t work) { return work >> 32; }
int RangesOf(uint64_t work) { return static_cast<int>((work >> 16) & 0xffff); }
int NextOf(uint64_t work) { return static_cast<int>(work & 0xffff); }
}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min(threads, 0xffff);
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
    work_.store((generation_ + 1) << 32);  // wakes spinners and sleepers; nothing to claim
  }
  wake_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

uint64_t ThreadPool::AwaitJob(uint64_t seen) {
  // Spin first: during decode the next job comes within microseconds.
  const auto deadline = Clock::now() + std::chrono::microseconds(kSpinMicros);
  for (int i = 0;; ++i) {
    const uint64_t g = GenerationOf(work_.load(std::memory_order_acquire));
    if (g != seen) return g;
    GLANCE_CPU_RELAX();
    if ((i & 255) == 255 && Clock::now() > deadline) break;
  }
  // Then sleep. sleepers_ is raised before the generation is re-checked (both seq_cst), and
  // the caller publishes the job before reading sleepers_: one of the two sees the other,
  // so a job is never missed; the mutex orders the notify against the wait.
  std::unique_lock<std::mutex> lock(mutex_);
  sleepers_.fetch_add(1);
  wake_cv_.wait(lock, [&] { return GenerationOf(work_.load()) != seen; });
  sleepers_.fetch_sub(1);
  return GenerationOf(work_.load(std::memory_order_acquire));
}

void ThreadPool::RunRanges(uint64_t generation) {
  for (;;) {
    uint64_t w = work_.load(std::memory_order_acquire);
    int index;
    for (;;) {
      if (GenerationOf(w) != generation || NextOf(w) >= RangesOf(w)) return;
      if (work_.compare_exchange_weak(w, w + 1, std::memory_order_acq_rel)) break;
    }
    index = NextOf(w);
    size_t b, e;
    SplitRange(job_n_, RangesOf(w), index, &b, &e);
    if (b < e) (*job_)(b, e);
    done_.fetch_add(1, std::memory_order_release);
  }
}

void ThreadPool::WorkerLoop() {
  uint64_t seen = 0;
  for (;;) {
    seen = AwaitJob(seen);
    if (stop_.load()) return;
    RunRanges(seen);
  }
}

void ThreadPool::ParallelFor(size_t n, const std::function<void(size_t, size_t)>& fn,
                             size_t grain) {
  if (n == 0) return;
  grain = std::max<size_t>(grain, 1);
  const int ranges = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads()),
                                                       (n + grain - 1) / grain));
  if (ranges <= 1 || workers_.empty() || busy_.exchange(true)) {
    fn(0, n);  // serial: small job, single thread, or a nested call
    return;
  }
  job_ = &fn;
  job_n_ = n;
  done_.store(0, std::memory_order_relaxed);
  ++generation_;
  // seq_cst: publishes the job (release) and is ordered before the sleepers_ read below.
  work_.store((generation_ << 32) | (static_cast<uint64_t>(ranges) << 16));
  if (sleepers_.load() > 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_cv_.notify_all();
  }
  RunRanges(generation_);
  // Every range is claimed; wait for the ones other threads are still running.
  for (int i = 0; done_.load(std::memory_order_acquire) != ranges; ++i) {
    GLANCE_CPU_RELAX();
    if ((i & 255) == 255) std::this_thread::yield();
  }
  job_ = nullptr;
  busy_.store(false);
}

}  // namespace glance::kernels
