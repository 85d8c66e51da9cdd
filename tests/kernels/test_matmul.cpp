// Matmul against a double-precision oracle, for every weight type and shapes that exercise
// SIMD tails and thread splits. Tolerance is relative to the sum of |terms| (f32 summation).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/cpu/dot.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/numeric.h"
#include "kernels/cpu/quant_formats.h"
#include "kernels/cpu/thread_pool.h"

using namespace glance::kernels;

namespace {
constexpr double kRelTol = 1e-5;  // of sum |x_k w_k|

struct Case {
  int64_t rows, in, out;
};

void CheckType(WeightType type, const Case& c, ThreadPool* pool) {
  std::mt19937 rng(static_cast<unsigned>(c.rows * 131 + c.in * 7 + c.out));
  std::normal_distribution<float> nd(0.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(c.rows * c.in)), wf(static_cast<size_t>(c.out * c.in)), bias(static_cast<size_t>(c.out));
  for (auto& v : x) v = nd(rng);
  for (auto& v : bias) v = nd(rng);
  std::vector<uint16_t> w16(wf.size());
  for (size_t i = 0; i < wf.size(); ++i) {
    wf[i] = round_bf16(nd(rng));
    w16[i] = f32_to_bf16(wf[i]);
  }
  WeightRef w{type, type == WeightType::F32 ? static_cast<const void*>(wf.data()) : w16.data(), c.out, c.in};
  if (type == WeightType::F16) {  // encode the same values as f16 by brute search-free path: use small ints
    for (size_t i = 0; i < wf.size(); ++i) {
      const int q = static_cast<int>(std::lround(wf[i] * 8.0f));
      wf[i] = static_cast<float>(q) / 8.0f;
      // f16 of q/8 : build from float via known exact conversion for small values
      const float f = wf[i];
      uint16_t h = 0;
      if (f != 0.0f) {
        int e;
        const float m = std::frexp(std::fabs(f), &e);  // f = m * 2^e, m in [0.5,1)
        const int exp16 = e - 1 + 15;
        const int mant = static_cast<int>(std::lround((m * 2.0f - 1.0f) * 1024.0f));
        h = static_cast<uint16_t>((f < 0 ? 0x8000 : 0) | (exp16 << 10) | mant);
      }
      w16[i] = h;
      ASSERT_EQ(f16_to_f32(h), f);
    }
  }
  std::vector<float> y(static_cast<size_t>(c.rows * c.out)), yref(y.size());
  Matmul(x.data(), c.rows, w, bias.data(), y.data(), pool);
  MatmulReference(x.data(), c.rows, w, bias.data(), yref.data());
  for (int64_t i = 0; i < c.rows; ++i)
    for (int64_t o = 0; o < c.out; ++o) {
      double exact = double(bias[static_cast<size_t>(o)]), mag = std::fabs(exact);
      for (int64_t k = 0; k < c.in; ++k) {
        const double t = double(x[static_cast<size_t>(i * c.in + k)]) * double(wf[static_cast<size_t>(o * c.in + k)]);
        exact += t;
        mag += std::fabs(t);
      }
      const size_t idx = static_cast<size_t>(i * c.out + o);
      EXPECT_NEAR(y[idx], exact, kRelTol * mag + 1e-6) << "fast i=" << i << " o=" << o;
      EXPECT_NEAR(yref[idx], exact, kRelTol * mag + 1e-6) << "ref i=" << i << " o=" << o;
    }
}
}  // namespace

TEST(Matmul, MatchesDoubleOracleForEveryWeightType) {
  ThreadPool pool(2);
  const Case cases[] = {{1, 1, 1}, {1, 17, 5}, {3, 64, 33}, {7, 100, 129}, {2, 1536, 32}};
  for (WeightType t : {WeightType::F32, WeightType::BF16, WeightType::F16})
    for (const Case& c : cases) {
      CheckType(t, c, &pool);
      CheckType(t, c, nullptr);
    }
}

TEST(Dot, SimdEqualsReferenceWithinRounding) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int n : {0, 1, 3, 8, 15, 16, 17, 63, 64, 65, 1000}) {
    std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    for (auto& v : a) v = u(rng);
    for (auto& v : b) v = u(rng);
    EXPECT_NEAR(DotF32(a.data(), b.data(), n), DotF32Reference(a.data(), b.data(), n), 1e-4 * (n + 1));
  }
}

TEST(Dot, NegativeControlDetectsAWrongResult) {
  // The oracle comparison above must be able to fail: a dot of different vectors differs.
  std::vector<float> a = {1, 2, 3, 4}, b = {1, 1, 1, 1}, c = {1, 1, 1, 2};
  EXPECT_GT(std::fabs(DotF32(a.data(), b.data(), 4) - DotF32(a.data(), c.data(), 4)), 1.0f);
}

// The SIMD loaders (weight_loaders-inl.h, behind row_to_f32 and every kernel) against at(),
// the scalar decoding, for every format and row lengths with vector and block tails: widening
// is exact, so the values must be equal, not close. Runs on every Highway target (ctest).
TEST(WeightLoaders, RowToF32EqualsScalarDecodingForEveryFormat) {
  std::mt19937 rng(23);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (int64_t cols : {1, 7, 16, 31, 32, 33, 100, 257}) {
    const int64_t rows = 3;
    std::vector<float> wf(static_cast<size_t>(rows * cols));
    for (auto& v : wf) v = nd(rng);
    std::vector<uint16_t> w16(wf.size());
    for (size_t i = 0; i < wf.size(); ++i) w16[i] = f32_to_bf16(wf[i]);
    // F16 bits: any pattern that is a finite half (exponent field below 31).
    std::vector<uint16_t> h16(wf.size());
    for (auto& h : h16) h = static_cast<uint16_t>(rng() & 0xfbffu);
    const WeightRef f32{WeightType::F32, wf.data(), rows, cols};
    const WeightRef refs[] = {f32,
                              {WeightType::BF16, w16.data(), rows, cols},
                              {WeightType::F16, h16.data(), rows, cols},
                              QuantizeMatrix(f32, WeightType::Q8, nullptr),
                              QuantizeMatrix(f32, WeightType::Q4, nullptr),
                              QuantizeMatrix(f32, WeightType::Q6, nullptr)};
    for (const WeightRef& w : refs) {
      std::vector<float> row(static_cast<size_t>(cols));
      for (int64_t r = 0; r < rows; ++r) {
        w.row_to_f32(r, row.data());
        for (int64_t k = 0; k < cols; ++k)
          ASSERT_EQ(row[static_cast<size_t>(k)], w.at(r, k))
              << WeightTypeName(w.type) << " cols " << cols << " [" << r << "][" << k << "]";
      }
    }
  }
}
