// bfp16ebs8 codec, packing and the emulated GEMM against the scalar reference.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/cpu/numeric.h"
#include "kernels/cpu/thread_pool.h"
#include "kernels/npu/bfp16.h"

namespace glance::kernels::npu {
namespace {

std::vector<float> Random(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// What the packed weight must hold: QuantizeInBlock over each group of 8 along a row.
std::vector<float> Quantized(const std::vector<float>& w, int64_t n, int64_t k) {
  std::vector<float> q(w.size());
  for (int64_t r = 0; r < n; ++r)
    for (int64_t k0 = 0; k0 < k; k0 += 8) {
      float mx = 0.0f;
      for (int64_t i = k0; i < std::min(k, k0 + 8); ++i) mx = std::max(mx, std::fabs(w[r * k + i]));
      for (int64_t i = k0; i < std::min(k, k0 + 8); ++i) q[r * k + i] = QuantizeInBlock(w[r * k + i], mx);
    }
  return q;
}

TEST(Bfp16, BlockKeepsSevenSignificantBitsOfTheMax) {
  const float in[8] = {1.0f, -0.5f, 0.25f, 3.0f, 0.0f, -3.0f, 1e-3f, 2.9999f};
  uint8_t b[9];
  EncodeBlock(in, b);
  float out[8];
  DecodeBlock(b, out);
  EXPECT_EQ(out[3], 3.0f);   // exactly representable with a shared exponent
  EXPECT_EQ(out[5], -3.0f);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[4], 0.0f);
  EXPECT_EQ(out[6], 0.0f);   // far below the block's step (2^-5 for a max in [2, 4))
  EXPECT_EQ(out[7], 3.0f);   // rounds to the nearest step
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], QuantizeInBlock(in[i], 3.0f)) << i;
}

TEST(Bfp16, RoundingUpPastSevenBitsBumpsTheExponent) {
  // 127.75 / step 1 rounds to 128, which needs the next exponent (step 2).
  const float in[8] = {127.75f, 1.0f, 0, 0, 0, 0, 0, 0};
  uint8_t b[9];
  EncodeBlock(in, b);
  float out[8];
  DecodeBlock(b, out);
  EXPECT_EQ(out[0], 128.0f);
  EXPECT_EQ(out[1], 0.0f);  // 1.0 / step 2 = 0.5, ties to even: 0
  EXPECT_EQ(out[0], QuantizeInBlock(127.75f, 127.75f));
}

TEST(Bfp16, PackUnpackEqualsTheQuantizationOfTheInput) {
  for (auto [n, k] : {std::pair<int64_t, int64_t>{64, 512}, {100, 70}, {7, 1030}, {130, 64}}) {
    const auto w = Random(static_cast<size_t>(n * k), static_cast<uint32_t>(n * 1000 + k));
    const PackedWeight p = PackWeight(w.data(), n, k);
    EXPECT_EQ(p.k_pad % 512, 0);
    EXPECT_EQ(p.n_pad % 64, 0);
    EXPECT_EQ(static_cast<int64_t>(p.bytes.size()), p.n_pad * p.k_pad / 8 * 9);
    const auto back = UnpackWeight(p);
    const auto want = Quantized(w, n, k);
    ASSERT_EQ(back.size(), want.size());
    for (size_t i = 0; i < back.size(); ++i) ASSERT_EQ(back[i], want[i]) << n << "x" << k << " at " << i;
    // Negative control: the quantization is not the identity (the test can fail).
    size_t differ = 0;
    for (size_t i = 0; i < w.size(); ++i) differ += back[i] != w[i];
    EXPECT_GT(differ, w.size() / 2);
  }
}

TEST(Bfp16, BlockIndexIsABijectionOverThePaddedTile) {
  const int64_t n_pad = 128, k_pad = 1024, tile_n = 64;
  std::vector<int> seen(static_cast<size_t>(n_pad * k_pad / 8), 0);
  for (int64_t n = 0; n < n_pad; ++n)
    for (int64_t k0 = 0; k0 < k_pad; k0 += 8) ++seen[static_cast<size_t>(BlockIndex(n, k0, k_pad, tile_n))];
  for (int s : seen) ASSERT_EQ(s, 1);
}

TEST(Bfp16, NonFiniteWeightsAreAnError) {
  std::vector<float> w(64 * 8, 0.5f);
  w[17] = NAN;
  EXPECT_THROW(PackWeight(w.data(), 64, 8), std::runtime_error);
}

TEST(Bfp16, EmulatedGemmEqualsTheScalarReferenceExactly) {
  ThreadPool pool(2);
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{3, 64, 512}, {5, 70, 100}, {1, 33, 1030}}) {
    const auto x = Random(static_cast<size_t>(m * k), 7, 2.0f);
    const auto w = Random(static_cast<size_t>(n * k), 8, 0.05f);
    std::vector<float> want(static_cast<size_t>(m * n));
    ReferenceBfpMatmul(x.data(), m, w.data(), n, k, want.data());
    const PackedWeight p = PackWeight(w.data(), n, k);
    std::vector<uint16_t> a(static_cast<size_t>(m * p.k_pad), 0), c(static_cast<size_t>(m * p.n_pad));
    for (int64_t r = 0; r < m; ++r)
      for (int64_t i = 0; i < k; ++i) a[static_cast<size_t>(r * p.k_pad + i)] = f32_to_bf16(x[r * k + i]);
    EmulateGemm(a.data(), m, p, c.data(), &pool);
    for (int64_t r = 0; r < m; ++r)
      for (int64_t o = 0; o < n; ++o)
        ASSERT_EQ(bf16_to_f32(c[static_cast<size_t>(r * p.n_pad + o)]), want[r * n + o]) << r << "," << o;
    // The NPU numerics differ from f32: the reference is not a plain matmul (negative control).
    double worst = 0.0;
    for (int64_t r = 0; r < m; ++r)
      for (int64_t o = 0; o < n; ++o) {
        double f = 0.0;
        for (int64_t i = 0; i < k; ++i) f += static_cast<double>(x[r * k + i]) * static_cast<double>(w[o * k + i]);
        worst = std::max(worst, std::fabs(f - static_cast<double>(want[r * n + o])));
      }
    EXPECT_GT(worst, 0.0);
  }
}

}  // namespace
}  // namespace glance::kernels::npu
