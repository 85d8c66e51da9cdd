// The int8 peak micro-benchmark (kernels/cpu/int8_peak.h) on every x86 instruction set this CPU
// has: its loop computes what the plain reference says (so it runs the instruction it claims,
// with every accumulator chain live — a merged or dropped chain changes the sum), including
// int16 saturation and wrap on AVX2, and the measurement counts its multiply-adds per
// instruction as documented.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "kernels/cpu/gemv_int8.h"
#include "kernels/cpu/int8_peak.h"
#include "kernels/cpu/thread_pool.h"

using namespace glance::kernels;

namespace {
const char* const kIsas[] = {"avx2", "avx-vnni", "avx512-vnni"};
}

TEST(Int8Peak, LoopMatchesItsReferenceOnEveryIsa) {
  if (!Int8KernelsAvailable()) GTEST_SKIP() << "no AVX2 + FMA: no int8 peak to measure";
  struct Case {
    int64_t iterations;
    uint8_t w;
    int8_t x;
  };
  // Small, negative, saturating on AVX2 (2·255·127 > 32767), wrapping over many iterations.
  const Case cases[] = {{1, 3, -2}, {7, 1, 1}, {1000, 200, 100}, {1000, 255, -128}, {123457, 9, 13}};
  for (const char* isa : kIsas) {
    if (!SelectInt8KernelIsa(isa)) {
      std::printf("int8 peak: %s not on this CPU\n", isa);
      continue;
    }
    for (const Case& c : cases)
      EXPECT_EQ(Int8PeakLoop(c.iterations, c.w, c.x), Int8PeakLoopReference(c.iterations, c.w, c.x))
          << isa << " iterations " << c.iterations << " w " << int(c.w) << " x " << int(c.x);
    // The reference is not trivially equal to anything: one more iteration changes it.
    EXPECT_NE(Int8PeakLoopReference(8, 3, -2), Int8PeakLoopReference(9, 3, -2)) << isa;
    const int64_t per_instruction = std::string(isa) == "avx512-vnni" ? 64 : 32;
    EXPECT_EQ(Int8PeakMacsPerIteration(), kInt8PeakAccumulators * per_instruction) << isa;
  }
  SelectInt8KernelIsa("");
}

TEST(Int8Peak, MeasuresEveryPassOnEveryThread) {
  if (!Int8KernelsAvailable()) GTEST_SKIP() << "no AVX2 + FMA";
  ThreadPool pool(2);
  const Int8PeakResult r = MeasureInt8Peak(2, &pool);
  ASSERT_EQ(r.gmac_per_s.size(), 2u);
  EXPECT_EQ(r.threads, 2);
  EXPECT_EQ(r.isa, Int8KernelName());
  // Any x86 core with AVX2 retires more than 1 GMAC/s of int8 multiply-adds on one thread.
  for (double g : r.gmac_per_s) EXPECT_GT(g, 1.0);
  EXPECT_THROW(MeasureInt8Peak(0, &pool), std::exception);
}
