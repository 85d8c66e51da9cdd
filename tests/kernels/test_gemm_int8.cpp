// The integer GEMM (kernels/cpu/gemm_int8.h) on every x86 instruction set this CPU has, Q8 and
// Q4, against its scalar oracle MatmulInt8Reference (the same int8 activations times the
// dequantized weights, summed in double): only f32 accumulation error may remain, so a wrong
// packing, nibble order, offset correction or scale fails by orders of magnitude. Shapes cover
// row tails of every micro-tile height, feature tails of every panel width, K tails inside and
// across the 512-column K blocks, sub-ranges, and Matmul end to end with threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <utility>
#include <vector>

#include "kernels/cpu/gemm_int8.h"
#include "kernels/cpu/gemv_int8.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/quant_formats.h"
#include "kernels/cpu/thread_pool.h"
#include "kernels/kernel_error.h"

using namespace glance::kernels;

namespace {

struct Shape {
  int64_t rows, in, out;
};

struct Fixture {
  std::vector<float> wf, x, bias;
  WeightRef w;
  Int8Activations xa;
};

Fixture Make(const Shape& s, WeightType type, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  Fixture f;
  f.wf.resize(static_cast<size_t>(s.out * s.in));
  f.x.resize(static_cast<size_t>(s.rows * s.in));
  f.bias.resize(static_cast<size_t>(s.out));
  for (auto& v : f.wf) v = nd(rng);
  for (auto& v : f.x) v = nd(rng);
  for (auto& v : f.bias) v = nd(rng);
  if (s.in > 40) f.x[3] = 9.0f;  // one outlier: block scales differ between rows and blocks
  f.w = QuantizeMatrix(WeightRef{WeightType::F32, f.wf.data(), s.out, s.in}, type, nullptr);
  QuantizeActivationsInt8(f.x.data(), s.rows, s.in, &f.xa);
  return f;
}

// Worst |y − oracle| / (Σ|x_q·w| + |bias|) over features [b, e): the f32 accumulation error
// relative to the magnitude of the sum.
double WorstRelative(const Fixture& f, const std::vector<float>& y, int64_t b, int64_t e) {
  std::vector<float> ref(y.size());
  MatmulInt8Reference(f.xa, f.w, f.bias.data(), ref.data());
  const int64_t kp = f.xa.blocks * kQuantBlock;
  double worst = 0;
  for (int64_t i = 0; i < f.xa.n_rows; ++i)
    for (int64_t o = b; o < e; ++o) {
      double mag = std::fabs(double(f.bias[size_t(o)]));
      for (int64_t k = 0; k < f.w.cols; ++k)
        mag += std::fabs(double(f.xa.q[size_t(i * kp + k)]) * double(f.xa.scale[size_t(i * f.xa.blocks + k / 32)]) *
                         double(f.w.at(o, k)));
      const size_t at = size_t(i * f.w.rows + o);
      worst = std::max(worst, std::fabs(double(y[at]) - double(ref[at])) / (mag + 1e-30));
    }
  return worst;
}

constexpr double kTol = 2e-6;  // f32 accumulation over ≤ a few thousand terms
const char* const kIsas[] = {"avx2", "avx-vnni", "avx512-vnni"};

}  // namespace

TEST(GemmInt8, MatchesOracleOnEveryIsaWithTails) {
  if (!Int8KernelsAvailable()) GTEST_SKIP() << "no AVX2 + FMA: the integer GEMM is unused here";
  const Shape shapes[] = {{1, 64, 40},   {2, 96, 18},   {3, 200, 17},  {4, 33, 16},  {5, 130, 35},
                          {6, 512, 32},  {7, 513, 33},  {8, 1100, 64}, {13, 257, 9}, {17, 2048, 70},
                          {12, 31, 100}, {19, 1600, 48}};
  for (const char* isa : kIsas) {
    if (!SelectInt8KernelIsa(isa)) {
      std::printf("integer GEMM: %s not on this CPU\n", isa);
      continue;
    }
    uint32_t seed = 1;
    for (WeightType t : {WeightType::Q8, WeightType::Q4})
      for (const Shape& s : shapes) {
        const Fixture f = Make(s, t, seed++);
        std::vector<float> y(static_cast<size_t>(s.rows * s.out), NAN);
        GemmInt8Range(f.xa, f.w, f.bias.data(), y.data(), 0, s.out);
        EXPECT_LE(WorstRelative(f, y, 0, s.out), kTol)
            << isa << " " << WeightTypeName(t) << " " << s.rows << "x" << s.in << "x" << s.out;
      }
  }
  SelectInt8KernelIsa("");
}

// Q4 read from the stored panels unpacked (RunQ4Direct) on every instruction set this CPU has:
// the same block sums and f32 operations as the packed path, so the same bits — over row
// counts of every micro-tile height, whole and partial panels, feature tails, K past one K
// block, and sub-ranges starting on and off a panel boundary. (The oracle tests above run it
// too: it is the default.)
TEST(GemmInt8, Q4DirectPanelsEqualThePackedPathBitForBit) {
  if (!Int8KernelsAvailable()) GTEST_SKIP() << "no AVX2 + FMA";
  for (const char* isa : kIsas) {
    if (!SelectInt8KernelIsa(isa)) continue;
    const Shape shapes[] = {{1, 64, 32},   {2, 96, 64},  {5, 200, 40},   {6, 512, 96},
                            {7, 1100, 70}, {13, 2048, 48}, {64, 640, 130}, {37, 33, 17}};
    const std::pair<int64_t, int64_t> ranges[] = {{0, -1}, {16, -1}, {5, 83}, {32, 64}};
    uint32_t seed = 900;
    for (const Shape& s : shapes) {
      const Fixture f = Make(s, WeightType::Q4, seed++);
      for (auto [b, e] : ranges) {
        if (e < 0 || e > s.out) e = s.out;
        if (b >= e) continue;
        std::vector<float> direct(static_cast<size_t>(s.rows * s.out), 7.0f), packed(direct);
        const int64_t before = SetGemmQ4DirectMaxRows(1 << 20);
        GemmInt8Range(f.xa, f.w, f.bias.data(), direct.data(), b, e);
        SetGemmQ4DirectMaxRows(0);
        GemmInt8Range(f.xa, f.w, f.bias.data(), packed.data(), b, e);
        SetGemmQ4DirectMaxRows(before);
        ASSERT_EQ(direct, packed) << isa << " " << s.rows << "x" << s.in << "x" << s.out << " [" << b << ", " << e << ")";
        EXPECT_LE(WorstRelative(f, direct, b, e), kTol) << isa << " " << s.rows << "x" << s.in << "x" << s.out;
      }
    }
  }
  SelectInt8KernelIsa("");
}

TEST(GemmInt8, SubRangeWritesOnlyItsFeatures) {
  if (!Int8KernelsAvailable()) GTEST_SKIP() << "no AVX2 + FMA";
  const Shape s{9, 300, 100};
  for (WeightType t : {WeightType::Q8, WeightType::Q4}) {
    const Fixture f = Make(s, t, 77);
    const float kSentinel = 12345.0f;
    std::vector<float> y(static_cast<size_t>(s.rows * s.out), kSentinel);
    const int64_t b = 5, e = 83;
    GemmInt8Range(f.xa, f.w, f.bias.data(), y.data(), b, e);
    EXPECT_LE(WorstRelative(f, y, b, e), kTol) << WeightTypeName(t);
    for (int64_t i = 0; i < s.rows; ++i) {
      for (int64_t o = 0; o < s.out; ++o) {
        if (o < b || o >= e) {
          ASSERT_EQ(y[size_t(i * s.out + o)], kSentinel) << WeightTypeName(t);
        }
      }
    }
  }
}

TEST(GemmInt8, MatmulTakesItFromTheThresholdWithThreads) {
  if (!Int8KernelsAvailable()) GTEST_SKIP() << "no AVX2 + FMA";
  ThreadPool pool(2);
  for (WeightType t : {WeightType::Q8, WeightType::Q4})
    for (const Shape& s : {Shape{kInt8GemmMinRows, 1000, 130}, Shape{64, 2048, 200}, Shape{130, 600, 70}}) {
      const Fixture f = Make(s, t, 5);
      std::vector<float> y(static_cast<size_t>(s.rows * s.out), NAN);
      Matmul(f.x.data(), s.rows, f.w, f.bias.data(), y.data(), &pool);
      EXPECT_LE(WorstRelative(f, y, 0, s.out), kTol) << WeightTypeName(t) << " rows=" << s.rows;
      // MatmulShared (one quantization for several weights) gives the same bits.
      std::vector<float> y2(y.size(), NAN);
      const MatmulOutput outs[] = {{&f.w, f.bias.data(), y2.data()}};
      MatmulShared(f.x.data(), s.rows, outs, 1, &pool);
      EXPECT_EQ(y, y2) << WeightTypeName(t);
    }
}

TEST(GemmInt8, NegativeControlsWrongInputsAreCaughtOrRefused) {
  if (!Int8KernelsAvailable()) GTEST_SKIP() << "no AVX2 + FMA";
  const Shape s{7, 257, 33};
  Fixture f = Make(s, WeightType::Q4, 99);
  std::vector<float> y(static_cast<size_t>(s.rows * s.out));
  GemmInt8Range(f.xa, f.w, nullptr, y.data(), 0, s.out);
  std::fill(f.bias.begin(), f.bias.end(), 0.0f);
  ASSERT_LE(WorstRelative(f, y, 0, s.out), kTol);
  // The oracle sees one activation the kernel did not use: the check must fail.
  f.xa.q[200] = static_cast<int8_t>(f.xa.q[200] > 0 ? -100 : 100);
  EXPECT_GT(WorstRelative(f, y, 0, s.out), 1e-4);
  // Float weights and a block-count mismatch are refused.
  const WeightRef wf{WeightType::F32, f.wf.data(), s.out, s.in};
  EXPECT_THROW(GemmInt8Range(f.xa, wf, nullptr, y.data(), 0, s.out), glance::Error);
  Int8Activations shorter;
  QuantizeActivationsInt8(f.x.data(), 1, 64, &shorter);
  EXPECT_THROW(GemmInt8Range(shorter, f.w, nullptr, y.data(), 0, s.out), glance::Error);
}
