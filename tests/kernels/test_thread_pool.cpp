#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "kernels/cpu/thread_pool.h"

using glance::kernels::ThreadPool;

TEST(ThreadPool, CoversEveryIndexExactlyOnce) {
  ThreadPool pool(3);
  for (size_t n : {0u, 1u, 2u, 3u, 7u, 100u, 1001u}) {
    std::vector<std::atomic<int>> hits(n);
    pool.ParallelFor(n, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) hits[i]++;
    });
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(hits[i].load(), 1) << "n=" << n << " i=" << i;
  }
}

TEST(ThreadPool, NestedCallRunsSeriallyWithoutDeadlock) {
  ThreadPool pool(2);
  std::atomic<int> total{0};
  pool.ParallelFor(4, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i)
      pool.ParallelFor(10, [&](size_t b2, size_t e2) { total += static_cast<int>(e2 - b2); });
  });
  EXPECT_EQ(total.load(), 40);
}

TEST(ThreadPool, ManyRoundsStayConsistent) {
  ThreadPool pool(2);
  long long sum = 0;
  for (int round = 0; round < 2000; ++round) {
    std::atomic<long long> s{0};
    pool.ParallelFor(64, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) s += static_cast<long long>(i);
    });
    sum += s.load();
  }
  EXPECT_EQ(sum, 2000LL * (63 * 64 / 2));
}

// Workers go to sleep after ThreadPool::kSpinMicros idle; jobs must still reach them (or be
// run by the caller) — no lost wake-up, no hang — whether they spin or sleep.
TEST(ThreadPool, JobsAfterIdleSleepStillComplete) {
  ThreadPool pool(3);
  for (int round = 0; round < 40; ++round) {
    if (round % 4 == 0)
      std::this_thread::sleep_for(std::chrono::microseconds(2 * ThreadPool::kSpinMicros));
    std::vector<std::atomic<int>> hits(97);
    pool.ParallelFor(hits.size(), [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) hits[i]++;
    });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1) << "round " << round;
  }
}

// Ranges are claimed by whichever thread is free: with more threads than cores and long
// ranges, every index is still covered exactly once and the call returns.
TEST(ThreadPool, OversubscribedPoolCoversEveryIndexOnce) {
  ThreadPool pool(8);
  for (int round = 0; round < 50; ++round) {
    std::vector<std::atomic<int>> hits(1000);
    pool.ParallelFor(hits.size(), [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) hits[i]++;
    });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  }
}
