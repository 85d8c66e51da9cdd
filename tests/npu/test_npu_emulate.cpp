// The emulated NPU GEMM against the scalar reference (emulate_gemm.h), both roundings and
// both packed layouts, with negative controls showing what each numeric choice changes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>
#include <vector>

#include "kernels/cpu/activations.h"
#include "kernels/cpu/numeric.h"
#include "kernels/cpu/thread_pool.h"
#include "kernels/npu/emulate_gemm.h"
#include "tests/npu/npu_test_data.h"

namespace glance::kernels::npu {
namespace {

std::vector<float> Random(size_t n, uint32_t seed, float scale) { return test_data::RandomNormal(n, seed, scale); }

std::vector<float> Emulate(const std::vector<float>& x, int64_t m, const PackedWeight& p, int64_t k, Rounding r,
                           ThreadPool* pool) {
  std::vector<uint16_t> a(static_cast<size_t>(m * p.k_pad), 0), c(static_cast<size_t>(m * p.n_pad));
  for (int64_t row = 0; row < m; ++row)
    for (int64_t i = 0; i < k; ++i) a[static_cast<size_t>(row * p.k_pad + i)] = f32_to_bf16(x[static_cast<size_t>(row * k + i)]);
  EmulateGemm(a.data(), m, p, c.data(), r, pool);
  std::vector<float> y(static_cast<size_t>(m * p.n));
  for (int64_t row = 0; row < m; ++row)
    for (int64_t o = 0; o < p.n; ++o) y[static_cast<size_t>(row * p.n + o)] = bf16_to_f32(c[static_cast<size_t>(row * p.n_pad + o)]);
  return y;
}

TEST(NpuEmulate, GemmEqualsTheScalarReferenceExactly) {
  ThreadPool pool(2);
  for (Rounding r : {Rounding::kConvEven, Rounding::kFloor})
    for (PackedLayout layout : {PackedLayout::kGemmTiles, PackedLayout::kGemvRows})
      for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{3, 64, 512}, {5, 70, 100}, {1, 33, 1030}}) {
        const auto x = Random(static_cast<size_t>(m * k), 7, 2.0f);
        const auto w = Random(static_cast<size_t>(n * k), 8, 0.05f);
        std::vector<float> want(static_cast<size_t>(m * n));
        ReferenceBfpMatmul(x.data(), m, w.data(), n, k, r, want.data());
        const PackedWeight p = PackWeight(w.data(), n, k, layout, r);
        const auto got = Emulate(x, m, p, k, r, &pool);
        for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << RoundingName(r) << " " << m << "x" << n << "x" << k << " at " << i;
      }
}

TEST(NpuEmulate, ActivationsAreBlockQuantizedAndRoundingMatters) {
  // Negative controls: (1) the same GEMM with the activations kept bf16 (our old model)
  // differs, so the activation conversion is really applied; (2) floor and nearest-even
  // differ, and floor is biased downward.
  const int64_t m = 4, n = 64, k = 512;
  const auto x = Random(static_cast<size_t>(m * k), 11, 1.0f);
  const auto w = Random(static_cast<size_t>(n * k), 12, 0.05f);
  const PackedWeight p = PackWeight(w.data(), n, k);
  const auto even = Emulate(x, m, p, k, Rounding::kConvEven, nullptr);
  const auto floor = Emulate(x, m, PackWeight(w.data(), n, k, PackedLayout::kGemmTiles, Rounding::kFloor), k,
                             Rounding::kFloor, nullptr);
  const std::vector<float> wq = UnpackWeight(p);
  int differ_bf16 = 0, differ_mode = 0;
  double bias = 0.0;
  for (int64_t r = 0; r < m; ++r)
    for (int64_t o = 0; o < n; ++o) {
      float acc = 0.0f;
      for (int64_t i = 0; i < k; ++i) acc += round_bf16(x[static_cast<size_t>(r * k + i)]) * wq[static_cast<size_t>(o * k + i)];
      const size_t at = static_cast<size_t>(r * n + o);
      differ_bf16 += round_bf16(acc) != even[at];
      differ_mode += floor[at] != even[at];
      bias += static_cast<double>(floor[at]) - static_cast<double>(even[at]);
    }
  EXPECT_GT(differ_bf16, m * n / 4);
  EXPECT_GT(differ_mode, m * n / 4);
  EXPECT_LT(bias, 0.0);
}

TEST(NpuEmulate, PairedSwiGluEpilogueEqualsItsReferenceAndRoundsOnce) {
  // The gu kernel's store: silu(gate)·up of the f32 accumulators, one rounding (both modes), on
  // a B of 32 gate | 32 up rows per 64. Negative controls: the product of the rounded gate and
  // up (what the host does with a GEMV's raw pairs) differs, and so does a swapped pairing.
  ThreadPool pool(2);
  const int64_t m = 6, n = 192, k = 520;
  const auto x = Random(static_cast<size_t>(m * k), 21, 1.0f);
  const auto w = Random(static_cast<size_t>(n * k), 22, 0.05f);
  for (Rounding r : {Rounding::kConvEven, Rounding::kFloor}) {
    const PackedWeight p = PackWeight(w.data(), n, k, PackedLayout::kGemmTiles, r);
    std::vector<uint16_t> a(static_cast<size_t>(m * p.k_pad), 0), c(static_cast<size_t>(m * p.n_pad / 2));
    for (int64_t row = 0; row < m; ++row)
      for (int64_t i = 0; i < k; ++i) a[static_cast<size_t>(row * p.k_pad + i)] = f32_to_bf16(x[static_cast<size_t>(row * k + i)]);
    EmulateGemm(a.data(), m, p, c.data(), r, &pool, Epilogue::kSwiGluPairs);
    std::vector<float> want(static_cast<size_t>(m * n / 2)), raw(static_cast<size_t>(m * n));
    ReferenceBfpSwiGlu(x.data(), m, w.data(), n, k, r, want.data());
    ReferenceBfpMatmul(x.data(), m, w.data(), n, k, r, raw.data());
    int twice = 0, swapped = 0;
    for (int64_t row = 0; row < m; ++row)
      for (int64_t j = 0; j < n / 2; ++j) {
        const float got = bf16_to_f32(c[static_cast<size_t>(row * p.n_pad / 2 + j)]);
        ASSERT_EQ(got, want[static_cast<size_t>(row * n / 2 + j)]) << RoundingName(r) << " at " << row << "," << j;
        const float g = raw[static_cast<size_t>(row * n + 64 * (j / 32) + j % 32)];
        const float u = raw[static_cast<size_t>(row * n + 64 * (j / 32) + 32 + j % 32)];
        twice += got != round_bf16(Silu(g) * u);
        swapped += got != round_bf16(Silu(u) * g);
      }
    EXPECT_GT(twice, 0) << RoundingName(r);
    EXPECT_GT(swapped, m * n / 4) << RoundingName(r);
  }
}

}  // namespace
}  // namespace glance::kernels::npu
