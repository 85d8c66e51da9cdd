// Attention over a half-precision cache (kernels/cpu/attention.h; the quantized engines' KV
// cache, core/lm/state.h KvType): the rounding into it (numeric.h f32_to_f16), the SIMD scores
// against their scalar oracle on the same half rows, and the whole attention of one query row
// (AttentionRowsF16, the product's kernel) over a half cache against the exact attention over the f32
// cache, within a tolerance derived from half's rounding (F16Tolerance). A negative control
// shows the tolerance rejects a bf16 cache (3 fewer mantissa bits).
// Runs on every compiled Highway target (tests/kernels/CMakeLists.txt).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "tests/kernels/random_vectors.h"
#include "kernels/cpu/activations.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/numeric.h"

namespace gk = glance::kernels;

namespace {


std::vector<uint16_t> ToF16(const std::vector<float>& v) {
  std::vector<uint16_t> h(v.size());
  gk::RoundToF16(v.data(), static_cast<int64_t>(v.size()), h.data());
  return h;
}

// Each element rounded to bf16 and back (numeric.h): the coarser cache of the negative control.
std::vector<float> RoundedToBf16(const std::vector<float>& v) {
  std::vector<float> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = gk::round_bf16(v[i]);
  return out;
}

// One query row's attention over n cached rows (stride D), by the scalar oracles in double:
// the softmax weights p [n] and the output o [D].
struct Attended {
  std::vector<double> p, o;
};
Attended AttendExact(const std::vector<float>& q, const std::vector<float>& keys,
                     const std::vector<float>& values, int64_t n, int64_t D, float scale) {
  Attended a{std::vector<double>(static_cast<size_t>(n)), std::vector<double>(static_cast<size_t>(D), 0.0)};
  double peak = -1e300, sum = 0.0;
  for (int64_t j = 0; j < n; ++j) {
    double s = 0.0;
    for (int64_t i = 0; i < D; ++i)
      s += static_cast<double>(q[static_cast<size_t>(i)]) * static_cast<double>(keys[static_cast<size_t>(j * D + i)]);
    a.p[static_cast<size_t>(j)] = s * static_cast<double>(scale);
    peak = std::max(peak, a.p[static_cast<size_t>(j)]);
  }
  for (double& x : a.p) sum += (x = std::exp(x - peak));
  for (int64_t j = 0; j < n; ++j) {
    a.p[static_cast<size_t>(j)] /= sum;
    for (int64_t i = 0; i < D; ++i)
      a.o[static_cast<size_t>(i)] += a.p[static_cast<size_t>(j)] * static_cast<double>(values[static_cast<size_t>(j * D + i)]);
  }
  return a;
}

// The product's path: the one-pass kernel reading half rows (AttentionRowsF16), as
// core/lm/gated_attention.cpp calls it.
std::vector<float> AttendF16(const std::vector<float>& q, const std::vector<uint16_t>& keys,
                              const std::vector<uint16_t>& values, int64_t n, int64_t D,
                              float scale) {
  std::vector<float> o(static_cast<size_t>(D));
  gk::AttentionRowsF16(q.data(), D, &n, 1, keys.data(), values.data(), D, D, scale, o.data(), D);
  return o;
}

// Tolerance per output element for attention over a cache rounded to half (unit roundoff
// u = 2^-11: 11 significant bits, round to nearest), to first order in the rounding errors:
//   Δo_i = Σ_j p_j Δv_ji + Σ_j p_j Δs_j (v_ji − o_i)     (softmax: Δp_j = p_j(Δs_j − Σ_k p_k Δs_k))
// with |Δv_ji| ≤ u|v_ji| and Δs_j = scale Σ_i q_i Δk_ji, |Δk_ji| ≤ u|k_ji|. The rounding errors
// are independent and zero-mean, so each sum is a random walk: its standard deviation is at
// most the root-sum-square of its terms' bounds. Three of those (plus f32 arithmetic's 1e-6
// of the output's scale) is the tolerance:
//   tol_i = 3 (u √Σ_j p_j² v_ji² + √Σ_j p_j² σ_j² (v_ji − o_i)²),  σ_j = u scale √Σ_i (q_i k_ji)².
// (The worst case, every error at its bound with the same sign, measured ~10× looser than any
// case here, too loose to tell half from a coarser cache.)
std::vector<double> F16Tolerance(const std::vector<float>& q, const std::vector<float>& keys,
                                  const std::vector<float>& values, int64_t n, int64_t D,
                                  float scale, const Attended& exact) {
  const double u = std::ldexp(1.0, -11);
  std::vector<double> val(static_cast<size_t>(D), 0.0), scr(val.size(), 0.0);
  double omax = 0.0;
  for (double x : exact.o) omax = std::max(omax, std::fabs(x));
  for (int64_t j = 0; j < n; ++j) {
    double ss = 0.0;
    for (int64_t i = 0; i < D; ++i) {
      const double t = static_cast<double>(q[static_cast<size_t>(i)]) * static_cast<double>(keys[static_cast<size_t>(j * D + i)]);
      ss += t * t;
    }
    const double pj = exact.p[static_cast<size_t>(j)], sigma = u * static_cast<double>(scale) * std::sqrt(ss);
    for (int64_t i = 0; i < D; ++i) {
      const double v = static_cast<double>(values[static_cast<size_t>(j * D + i)]);
      const double dv = v - exact.o[static_cast<size_t>(i)];
      val[static_cast<size_t>(i)] += pj * pj * v * v;
      scr[static_cast<size_t>(i)] += pj * pj * sigma * sigma * dv * dv;
    }
  }
  std::vector<double> tol(val.size());
  for (size_t i = 0; i < tol.size(); ++i) tol[i] = 3.0 * (u * std::sqrt(val[i]) + std::sqrt(scr[i])) + 1e-6 * omax;
  return tol;
}

// max_i |got_i − exact_i| / tol_i: above 1 means out of tolerance.
template <class Vec>
double WorstRatio(const Vec& got, const Attended& exact, const std::vector<double>& tol) {
  double r = 0.0;
  for (size_t i = 0; i < tol.size(); ++i)
    r = std::max(r, std::fabs(static_cast<double>(got[i]) - exact.o[i]) / tol[i]);
  return r;
}

}  // namespace

// Every finite half survives f32 and back; a float rounds to the nearer of its two
// neighbouring halves (ties to even), beyond the range it saturates, NaN stays NaN.
TEST(AttentionF16, RoundToF16IsNearestEvenAndSaturates) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    if ((h & 0x7c00u) == 0x7c00u) continue;  // inf / NaN
    ASSERT_EQ(gk::f32_to_f16(gk::f16_to_f32(static_cast<uint16_t>(h))), h) << std::hex << h;
  }
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> mant(-1.0f, 1.0f);
  std::uniform_int_distribution<int> expo(-26, 16);
  for (int i = 0; i < 200000; ++i) {
    const float x = std::ldexp(mant(rng), expo(rng));
    const uint16_t h = gk::f32_to_f16(x);
    const float y = gk::f16_to_f32(h);
    if (std::fabs(x) > 65504.0f) {
      ASSERT_EQ(std::fabs(y), 65504.0f) << x;
      continue;
    }
    if (y == x) continue;
    // The neighbouring half on the other side of x is no nearer (equal only on a tie, which
    // must then have picked the even one).
    const auto mag = static_cast<uint16_t>(h & 0x7fffu);
    const bool up = std::fabs(y) < std::fabs(x);
    if (!up && mag == 0) continue;
    const auto other = static_cast<uint16_t>((h & 0x8000u) | (up ? mag + 1u : mag - 1u));
    const float z = gk::f16_to_f32(other);
    ASSERT_LE(std::fabs(y - x), std::fabs(z - x)) << x;
    if (std::fabs(y - x) == std::fabs(z - x)) {
      ASSERT_EQ(h & 1u, 0u) << x;
    }
  }
  EXPECT_EQ(gk::f32_to_f16(1e6f), 0x7bffu);
  EXPECT_EQ(gk::f32_to_f16(-1e6f), 0xfbffu);
  EXPECT_EQ(gk::f32_to_f16(65519.0f), 0x7bffu);  // below the halfway point to 65536
  EXPECT_EQ(gk::f32_to_f16(std::ldexp(1.0f, -24)), 0x0001u);  // smallest subnormal
  EXPECT_EQ(gk::f32_to_f16(std::ldexp(1.0f, -25)), 0x0000u);  // a tie: to even (zero)
  EXPECT_TRUE(std::isnan(gk::f16_to_f32(gk::f32_to_f16(std::nanf("")))));
  const std::vector<float> v = gk::testing::RandomNormal(1000, 11, 3.0f);
  const std::vector<uint16_t> b = ToF16(v);
  for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(b[i], gk::f32_to_f16(v[i])) << i;
}

// The SIMD scores on half rows equal their scalar oracle up to f32 summation order (the
// same bound as the f32 kernels' test in test_vector_kernels.cpp), at odd strides and lengths.
TEST(AttentionF16, KernelsMatchTheirReference) {
  for (int64_t D : {64, 100, 128, 256}) {
    for (int64_t n : {1, 5, 64, 333}) {
      const int64_t stride = D + 3;
      const auto q = gk::testing::RandomNormal(static_cast<size_t>(D), 1);
      const auto keys = ToF16(gk::testing::RandomNormal(static_cast<size_t>(n * stride), 2));
      const float scale = 1.0f / std::sqrt(static_cast<float>(D));
      std::vector<float> s(static_cast<size_t>(n)), s_ref(s.size()), bound(s.size());
      gk::AttentionScoresF16(q.data(), keys.data(), stride, n, D, scale, s.data());
      gk::AttentionScoresF16Reference(q.data(), keys.data(), stride, n, D, scale, s_ref.data());
      std::vector<float> qa(q);
      for (auto& x : qa) x = std::fabs(x);
      std::vector<uint16_t> ka(keys);
      for (auto& k : ka) k &= 0x7fff;  // |key|: clear the sign bit
      gk::AttentionScoresF16Reference(qa.data(), ka.data(), stride, n, D, scale, bound.data());
      for (size_t j = 0; j < s.size(); ++j)
        EXPECT_LE(std::fabs(s[j] - s_ref[j]), 1e-6f * static_cast<float>(D) * bound[j])
            << "D=" << D << " n=" << n << " j=" << j;

    }
  }
}

// A half row widens exactly: the half kernels equal the f32 kernels run on the rounded rows,
// bit for bit (the same loops, F16Format::Load instead of LoadU).
TEST(AttentionF16, EqualsF32KernelsOnRoundedRowsExactly) {
  const int64_t D = 256, n = 77;
  const auto q = gk::testing::RandomNormal(static_cast<size_t>(D), 4);
  const auto rows16 = ToF16(gk::testing::RandomNormal(static_cast<size_t>(n * D), 5));
  std::vector<float> rows32(rows16.size());
  for (size_t i = 0; i < rows16.size(); ++i) rows32[i] = gk::f16_to_f32(rows16[i]);
  std::vector<float> s16(static_cast<size_t>(n)), s32(s16.size()), o16(static_cast<size_t>(D)), o32(o16.size());
  gk::AttentionScoresF16(q.data(), rows16.data(), D, n, D, 0.0625f, s16.data());
  gk::AttentionScores(q.data(), rows32.data(), D, n, D, 0.0625f, s32.data());
  EXPECT_EQ(0, std::memcmp(s16.data(), s32.data(), s16.size() * sizeof(float)));
  gk::AttentionRowsF16(q.data(), D, &n, 1, rows16.data(), rows16.data(), D, D, 0.0625f, o16.data(), D);
  gk::AttentionRows(q.data(), D, &n, 1, rows32.data(), rows32.data(), D, D, 0.0625f, o32.data(), D);
  EXPECT_EQ(0, std::memcmp(o16.data(), o32.data(), o16.size() * sizeof(float)));
}

// The tolerance the quantized engines accept: attention of one query over a half cache (the
// one-pass kernel, this target) stays within F16Tolerance of the exact attention over the f32
// cache, with realistic inputs (unit-RMS keys, queries scaled for flat to peaked softmaxes),
// long caches included.
TEST(AttentionF16, CacheAttentionWithinToleranceOfF32) {
  const int64_t D = 256;
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  double worst = 0.0;
  for (float q_scale : {0.5f, 2.0f, 6.0f}) {
    for (int64_t n : {1, 17, 512, 2048}) {
      const auto q = gk::testing::RandomNormal(static_cast<size_t>(D), 6, q_scale);
      const auto keys = gk::testing::RandomNormal(static_cast<size_t>(n * D), 7);
      const auto values = gk::testing::RandomNormal(static_cast<size_t>(n * D), 8, 0.7f);
      const Attended exact = AttendExact(q, keys, values, n, D, scale);
      const auto tol = F16Tolerance(q, keys, values, n, D, scale, exact);
      const double r = WorstRatio(AttendF16(q, ToF16(keys), ToF16(values), n, D, scale), exact, tol);
      EXPECT_LE(r, 1.0) << "q_scale=" << q_scale << " n=" << n;
      worst = std::max(worst, r);
    }
  }
  std::printf("half cache attention: worst |error| / tolerance = %.3f\n", worst);
}

// Negative control: a bf16 cache (7 stored mantissa bits instead of half's 10: 8× the rounding
// error) is out of tolerance: the tolerance is tight enough to tell the two caches apart.
TEST(AttentionF16, NegativeControlBf16CacheBreaksTheTolerance) {
  const int64_t D = 256, n = 512;
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  const auto q = gk::testing::RandomNormal(static_cast<size_t>(D), 9, 2.0f);
  const auto keys = gk::testing::RandomNormal(static_cast<size_t>(n * D), 10);
  const auto values = gk::testing::RandomNormal(static_cast<size_t>(n * D), 11, 0.7f);
  const Attended exact = AttendExact(q, keys, values, n, D, scale);
  const auto tol = F16Tolerance(q, keys, values, n, D, scale, exact);
  const double coarse = WorstRatio(AttendExact(q, RoundedToBf16(keys), RoundedToBf16(values), n, D, scale).o, exact, tol);
  std::printf("bf16 cache attention: worst |error| / half tolerance = %.2f\n", coarse);
  EXPECT_GT(coarse, 1.0);
}
