#include <gtest/gtest.h>

#include <atomic>
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
