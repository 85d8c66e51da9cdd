// The packed GEMM (kernels/cpu/gemm_packed.h) for every weight type against a double oracle
// over the dequantized weights (WeightRef::at), on shapes that exercise every tail: rows not a
// multiple of the 6-row micro-tile, features not a multiple of the panel width (16 on AVX2,
// 32 on AVX-512) or of the 8-panel group, K not a multiple of the 256 K block or of the
// 32 quant block, sub-ranges of features (the per-thread unit), and with/without bias.
// Negative control: a single wrong weight must be caught by the same check.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/cpu/gemm_packed.h"
#include "kernels/cpu/gemv_int8.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/numeric.h"
#include "kernels/cpu/quant_formats.h"
#include "kernels/cpu/thread_pool.h"

using namespace glance::kernels;

namespace {

// f32 accumulation over ≤ ~1000 terms in K blocks: relative to Σ|x·w| (as test_quant_kernels).
constexpr double kSumTol = 1e-5;

struct Shape {
  int64_t rows, in, out;
};
const Shape kShapes[] = {{4, 64, 16},   {5, 31, 7},     {6, 256, 32},  {7, 257, 33},
                         {13, 300, 70}, {4, 520, 260},  {19, 1, 3},    {12, 96, 129},
                         {8, 513, 300}, {6, 33, 1}};

// Max over outputs of |y − exact| / (kSumTol · Σ|x·w| + 1e-30), computed in double.
double WorstRatio(const std::vector<float>& x, const WeightRef& w, const float* bias,
                  const std::vector<float>& y, int64_t rows, int64_t o_begin, int64_t o_end) {
  double worst = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t o = o_begin; o < o_end; ++o) {
      double exact = bias ? static_cast<double>(bias[o]) : 0.0, sumabs = std::fabs(exact);
      for (int64_t k = 0; k < w.cols; ++k) {
        const double p = static_cast<double>(x[static_cast<size_t>(i * w.cols + k)]) *
                         static_cast<double>(w.at(o, k));
        exact += p;
        sumabs += std::fabs(p);
      }
      const double err = std::fabs(static_cast<double>(y[static_cast<size_t>(i * w.rows + o)]) - exact);
      worst = std::max(worst, err / (kSumTol * sumabs + 1e-30));
    }
  return worst;
}

struct Fixture {
  std::vector<float> x, wf, bias;
  std::vector<uint16_t> w16;
  WeightRef w;
};

Fixture Make(const Shape& s, WeightType t, uint32_t seed) {
  Fixture f;
  std::mt19937 rng(seed);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  f.x.resize(static_cast<size_t>(s.rows * s.in));
  f.wf.resize(static_cast<size_t>(s.out * s.in));
  f.bias.resize(static_cast<size_t>(s.out));
  for (auto& v : f.x) v = nd(rng);
  for (auto& v : f.wf) v = nd(rng) * 0.05f;
  for (auto& v : f.bias) v = nd(rng);
  const WeightRef src{WeightType::F32, f.wf.data(), s.out, s.in};
  if (t == WeightType::F32) {
    f.w = src;
  } else if (t == WeightType::F16) {
    // Values q/1024 with |q| < 2048 are exactly representable in f16: build their bits.
    f.w16.resize(f.wf.size());
    for (size_t i = 0; i < f.wf.size(); ++i) {
      const int q = static_cast<int>(std::lround(f.wf[i] * 1024.0f));  // |q| < 2048
      const float v = static_cast<float>(q) / 1024.0f;
      uint16_t h = 0;
      if (q != 0) {
        const float a = std::fabs(v);
        int e = 0;
        const float m = std::frexp(a, &e);  // a = m·2^e, m in [0.5, 1)
        const int exp16 = e - 1 + 15;
        const int mant = static_cast<int>(std::lround((m * 2.0f - 1.0f) * 1024.0f));
        h = static_cast<uint16_t>((v < 0 ? 0x8000 : 0) | (exp16 << 10) | mant);
      }
      f.w16[i] = h;
    }
    f.w = WeightRef{WeightType::F16, f.w16.data(), s.out, s.in};
  } else {
    f.w = QuantizeMatrix(src, t, nullptr);
  }
  return f;
}

const WeightType kTypes[] = {WeightType::F32, WeightType::BF16, WeightType::F16, WeightType::Q8,
                             WeightType::Q4, WeightType::Q6};

}  // namespace

TEST(GemmPacked, F16FixtureIsExact) {
  // The hand-built f16 bits above must decode to the intended values (else the F16 case would
  // test nothing meaningful).
  const Fixture f = Make({4, 40, 5}, WeightType::F16, 3);
  for (int64_t o = 0; o < 5; ++o)
    for (int64_t k = 0; k < 40; ++k) {
      const float want =
          static_cast<float>(std::lround(f.wf[static_cast<size_t>(o * 40 + k)] * 1024.0f)) / 1024.0f;
      ASSERT_EQ(f.w.at(o, k), want) << o << "," << k;
    }
}

TEST(GemmPacked, AllTypesAndTailsMatchOracle) {
  uint32_t seed = 10;
  for (WeightType t : kTypes)
    for (const Shape& s : kShapes)
      for (bool with_bias : {false, true}) {
        Fixture f = Make(s, t, seed++);
        const float* bias = with_bias ? f.bias.data() : nullptr;
        std::vector<float> y(static_cast<size_t>(s.rows * s.out), NAN);
        detail::GemmPackedRange(f.x.data(), s.rows, f.w, bias, y.data(), 0, s.out);
        const double r = WorstRatio(f.x, f.w, bias, y, s.rows, 0, s.out);
        EXPECT_LE(r, 1.0) << WeightTypeName(t) << " rows=" << s.rows << " in=" << s.in
                          << " out=" << s.out << " bias=" << with_bias;
      }
}

TEST(GemmPacked, SubRangeWritesOnlyItsFeatures) {
  const Shape s{9, 300, 100};
  for (WeightType t : kTypes) {
    Fixture f = Make(s, t, 77);
    const float kSentinel = 12345.0f;
    std::vector<float> y(static_cast<size_t>(s.rows * s.out), kSentinel);
    const int64_t b = 5, e = 83;
    detail::GemmPackedRange(f.x.data(), s.rows, f.w, f.bias.data(), y.data(), b, e);
    EXPECT_LE(WorstRatio(f.x, f.w, f.bias.data(), y, s.rows, b, e), 1.0) << WeightTypeName(t);
    for (int64_t i = 0; i < s.rows; ++i) {
      for (int64_t o = 0; o < s.out; ++o) {
        if (o < b || o >= e) {
          ASSERT_EQ(y[static_cast<size_t>(i * s.out + o)], kSentinel);
        }
      }
    }
  }
}

TEST(GemmPacked, ThroughMatmulWithThreads) {
  ThreadPool pool(2);
  for (WeightType t : kTypes)
    for (const Shape& s : {Shape{64, 512, 200}, Shape{5, 1000, 130}, Shape{37, 2048, 64},
                           Shape{70, 1000, 130}, Shape{130, 300, 70}}) {
      // Fewer rows take the integer kernels for Q8/Q4 (test_quant_kernels covers them); with
      // the x86 integer kernels on, so do more (test_gemm_int8): off here, as on other CPUs.
      const bool quantized = t == WeightType::Q8 || t == WeightType::Q4 || t == WeightType::Q6;
      const int64_t min_rows = quantized ? detail::kPackedGemmMinRowsQuantized : detail::kPackedGemmMinRows;
      if (s.rows < min_rows) continue;
      Fixture f = Make(s, t, 5);
      std::vector<float> y(static_cast<size_t>(s.rows * s.out), NAN);
      const bool was = SetInt8KernelsEnabled(!quantized);
      Matmul(f.x.data(), s.rows, f.w, f.bias.data(), y.data(), &pool);
      SetInt8KernelsEnabled(was);
      EXPECT_LE(WorstRatio(f.x, f.w, f.bias.data(), y, s.rows, 0, s.out), 1.0)
          << WeightTypeName(t) << " rows=" << s.rows;
    }
}

TEST(GemmPacked, NegativeControlWrongWeightIsCaught) {
  const Shape s{7, 257, 33};
  Fixture f = Make(s, WeightType::F32, 99);
  std::vector<float> y(static_cast<size_t>(s.rows * s.out));
  detail::GemmPackedRange(f.x.data(), s.rows, f.w, nullptr, y.data(), 0, s.out);
  ASSERT_LE(WorstRatio(f.x, f.w, nullptr, y, s.rows, 0, s.out), 1.0);
  // The oracle sees a weight the kernel did not use: the check must fail.
  f.wf[static_cast<size_t>(20 * s.in + 200)] += 0.01f;
  EXPECT_GT(WorstRatio(f.x, f.w, nullptr, y, s.rows, 0, s.out), 1.0);
}
