// Every weight type × shapes with SIMD/block tails × threads on/off against the double-precision
// product of the *dequantized* weights (WeightRef::at), with error statistics. Also the
// quantize→dequantize error bounds, the compressed-tensors int4 repack, and negative controls
// showing the checker catches a wrong weight.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/gemm_int8.h"
#include "kernels/cpu/gemv_int8.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/numeric.h"
#include "kernels/cpu/quant_formats.h"
#include "kernels/cpu/thread_pool.h"
#include "kernels/cpu/weight_panels.h"
#include "kernels/kernel_error.h"

using namespace glance::kernels;

namespace {

// f32 kernels: relative to Σ|x·w| (f32 accumulation over ≤ a few thousand terms).
constexpr double kF32SumTol = 1e-5;
// Q8/Q4/Q6 kernels quantize activations per 32-block, to int8 (on x86 with AVX2: Q4 and Q6 always,
// gemv_int8.h; Q8 from the integer GEMM's row count, gemm_int8.h) or int16: each |x| error ≤
// amax_b / (2·127) or amax_b / (2·32767), so the dot error ≤ Σ_b amax_b/(2·qmax) · Σ_{k∈b}|w_k|
// (exact bound; 1% slack for f32 scales).
double ActQuantBound(WeightType t, int64_t rows) {
  const bool int8 =
      Int8KernelsActive() && (t == WeightType::Q4 || t == WeightType::Q6 || rows >= Int8GemmMinRows());
  return int8 ? 1.01 / 254.0 : 1.01 / 65534.0;
}
// Mean error over a case must be well below the worst case.
constexpr double kMeanFraction = 0.5;

struct Case {
  int64_t rows, in, out;
};
const Case kCases[] = {{1, 64, 40},  {1, 100, 33}, {1, 31, 7},   {2, 96, 18},  {3, 200, 17},
                       {4, 64, 16},  {5, 130, 35}, {7, 257, 9},  {9, 2048, 6}, {1, 2048, 70},
                       {1, 1, 3},    {6, 33, 1}};

struct Stats {
  double max_rel = 0, mean_rel = 0;  // error / allowed bound
  double max_abs = 0;
  bool ok = true;
};

// Checks y against the double oracle over w.at(); returns error statistics.
Stats Compare(const std::vector<float>& x, const WeightRef& w, const std::vector<float>& bias,
              const std::vector<float>& y, int64_t rows) {
  Stats st;
  const int64_t in = w.cols, out = w.rows;
  double sum_rel = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t o = 0; o < out; ++o) {
      double exact = bias[static_cast<size_t>(o)], sumabs = std::fabs(exact), qbound = 0;
      for (int64_t b = 0; b * 32 < in; ++b) {
        double amax = 0, wsum = 0;
        for (int64_t k = b * 32; k < std::min(in, b * 32 + 32); ++k) {
          const double xv = x[static_cast<size_t>(i * in + k)], wv = w.at(o, k);
          exact += xv * wv;
          sumabs += std::fabs(xv * wv);
          amax = std::max(amax, std::fabs(xv));
          wsum += std::fabs(wv);
        }
        qbound += amax * wsum;
      }
      double allowed = kF32SumTol * sumabs + 1e-30;
      if (w.quantized()) allowed += ActQuantBound(w.type, rows) * qbound;
      const double err = std::fabs(double(y[static_cast<size_t>(i * out + o)]) - exact);
      const double rel = err / allowed;
      st.max_rel = std::max(st.max_rel, rel);
      st.max_abs = std::max(st.max_abs, err);
      sum_rel += rel;
      if (!(rel <= 1.0)) st.ok = false;
    }
  st.mean_rel = sum_rel / double(rows * out);
  return st;
}

uint16_t ExactF16(float f) {  // f is a multiple of 1/64 with |f| < 4: exactly representable
  if (f == 0.0f) return 0;
  int e;
  const float m = std::frexp(std::fabs(f), &e);
  return static_cast<uint16_t>((f < 0 ? 0x8000 : 0) | ((e - 1 + 15) << 10) |
                               static_cast<int>(std::lround((m * 2.0f - 1.0f) * 1024.0f)));
}

struct Built {
  WeightRef w;
  std::vector<float> f32;
  std::vector<uint16_t> f16;
};

Built MakeWeights(WeightType type, int64_t out, int64_t in, std::mt19937& rng) {
  std::normal_distribution<float> nd(0.0f, 0.5f);
  Built b;
  b.f32.resize(static_cast<size_t>(out * in));
  for (auto& v : b.f32) v = std::clamp(std::round(nd(rng) * 64.0f) / 64.0f, -3.9f, 3.9f);
  // One outlier row block so that scales differ a lot between blocks.
  if (in > 40) b.f32[5] = 3.5f;
  WeightRef src{WeightType::F32, b.f32.data(), out, in};
  if (type == WeightType::F32) {
    b.w = src;
  } else if (type == WeightType::F16) {
    b.f16.resize(b.f32.size());
    for (size_t i = 0; i < b.f32.size(); ++i) b.f16[i] = ExactF16(b.f32[i]);
    b.w = WeightRef{WeightType::F16, b.f16.data(), out, in};
  } else {
    b.w = QuantizeMatrix(src, type, nullptr);
  }
  return b;
}

bool w_quantized(WeightType t) { return t == WeightType::Q8 || t == WeightType::Q4 || t == WeightType::Q6; }

class QuantKernels : public ::testing::TestWithParam<WeightType> {};

TEST_P(QuantKernels, MatchesDequantizedOracleWithTailsAndThreads) {
  const WeightType type = GetParam();
  ThreadPool pool(2);
  // Quantized types: the x86 kernels (gemv_int8.h) of every instruction set this CPU has,
  // then the portable Highway ones.
  const std::vector<const char*> variants =
      w_quantized(type) ? std::vector<const char*>{"avx2", "avx-vnni", "avx512-vnni", "portable"}
                        : std::vector<const char*>{"portable"};
  for (const char* variant : variants) {
  const bool portable = std::string(variant) == "portable";
  if (!portable && !SelectInt8KernelIsa(variant)) continue;
  SetInt8KernelsEnabled(!portable);
  for (const Case& c : kCases) {
    std::mt19937 rng(unsigned(c.rows * 131 + c.in * 7 + c.out));
    Built wb = MakeWeights(type, c.out, c.in, rng);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> x(static_cast<size_t>(c.rows * c.in)), bias(static_cast<size_t>(c.out));
    for (auto& v : x) v = nd(rng);
    for (auto& v : bias) v = nd(rng);
    std::vector<float> y1(static_cast<size_t>(c.rows * c.out)), y2(y1.size()), yref(y1.size());
    Matmul(x.data(), c.rows, wb.w, bias.data(), y1.data(), nullptr);
    Matmul(x.data(), c.rows, wb.w, bias.data(), y2.data(), &pool);
    MatmulReference(x.data(), c.rows, wb.w, bias.data(), yref.data());
    const Stats s1 = Compare(x, wb.w, bias, y1, c.rows);
    const Stats sref = Compare(x, wb.w, bias, yref, c.rows);
    std::printf("%-4s %-11s rows %ld in %4ld out %3ld: max err/bound %.3f mean %.3f max abs %.2e\n",
                WeightTypeName(type), variant, long(c.rows), long(c.in), long(c.out), s1.max_rel,
                s1.mean_rel, s1.max_abs);
    EXPECT_TRUE(s1.ok) << WeightTypeName(type) << " " << c.rows << "x" << c.in << "x" << c.out
                       << " max err/bound " << s1.max_rel;
    EXPECT_LE(s1.mean_rel, kMeanFraction);
    EXPECT_TRUE(sref.ok) << "scalar reference off for " << WeightTypeName(type);
    // The split across threads never changes what a feature's sum is.
    EXPECT_EQ(y1, y2) << WeightTypeName(type) << " threads changed the result";
  }
  }
  SetInt8KernelsEnabled(true);
  SelectInt8KernelIsa("");
}

TEST_P(QuantKernels, NegativeControlWrongWeightIsCaught) {
  const WeightType type = GetParam();
  std::mt19937 rng(7);
  Built wb = MakeWeights(type, 9, 96, rng);
  std::vector<float> x(3 * 96, 0.5f), bias(9, 0.0f), y(3 * 9);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i % 7) - 3);
  Matmul(x.data(), 3, wb.w, bias.data(), y.data(), nullptr);
  ASSERT_TRUE(Compare(x, wb.w, bias, y, 3).ok);
  // Same y judged against a weight with one element changed: must fail.
  Built other = MakeWeights(type, 9, 96, rng);
  EXPECT_FALSE(Compare(x, other.w, bias, y, 3).ok);
  // A quantized result judged against the unquantized f32 weights is off by more than the
  // kernel tolerance (shows the quantization error is real and the checker sees it).
  if (wb.w.quantized()) {
    WeightRef f32{WeightType::F32, wb.f32.data(), 9, 96};
    std::vector<float> xs(x.size());
    std::normal_distribution<float> nd;
    for (auto& v : xs) v = nd(rng);
    std::vector<float> w_rand(9 * 96);
    for (auto& v : w_rand) v = nd(rng) * 0.37f;
    WeightRef src{WeightType::F32, w_rand.data(), 9, 96};
    WeightRef q = QuantizeMatrix(src, type, nullptr);
    Matmul(xs.data(), 3, q, bias.data(), y.data(), nullptr);
    EXPECT_FALSE(Compare(xs, src, bias, y, 3).ok);
    (void)f32;
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, QuantKernels,
                         ::testing::Values(WeightType::F32, WeightType::BF16, WeightType::F16,
                                           WeightType::Q8, WeightType::Q4, WeightType::Q6),
                         [](const auto& p) { return std::string(WeightTypeName(p.param)); });

TEST(QuantFormats, RoundTripErrorBounds) {
  std::mt19937 rng(3);
  std::normal_distribution<float> nd(0.0f, 0.02f);
  for (int64_t cols : {1, 31, 32, 33, 100, 2048}) {
    std::vector<float> w(static_cast<size_t>(cols));
    for (auto& v : w) v = nd(rng);
    const int64_t nb = QuantBlocks(cols);
    std::vector<int8_t> q8(static_cast<size_t>(nb * 32));
    std::vector<float> s8(static_cast<size_t>(nb)), back(static_cast<size_t>(cols));
    QuantizeRowQ8(w.data(), cols, q8.data(), s8.data());
    const WeightRef w8{WeightType::Q8, q8.data(), 1, cols, s8.data()};
    w8.row_to_f32(0, back.data());  // the SIMD loaders (weight_loaders-inl.h) ...
    for (int64_t k = 0; k < cols; ++k)  // ... agree with the scalar decoding exactly
      ASSERT_EQ(back[static_cast<size_t>(k)], w8.at(0, k)) << cols << " " << k;
    double max_ratio8 = 0;
    for (int64_t k = 0; k < cols; ++k) {
      const double d = s8[static_cast<size_t>(k / 32)];
      max_ratio8 = std::max(max_ratio8, std::fabs(double(back[static_cast<size_t>(k)]) - double(w[static_cast<size_t>(k)])) / d);
    }
    EXPECT_LE(max_ratio8, 0.5 + 1e-4) << cols;  // round to nearest: half a step
    for (int64_t k = cols; k < nb * 32; ++k) EXPECT_EQ(q8[static_cast<size_t>(k)], 0);  // padding

    std::vector<uint8_t> q4(static_cast<size_t>(nb * 16));
    std::vector<uint16_t> s4(static_cast<size_t>(nb));
    QuantizeRowQ4(w.data(), cols, q4.data(), s4.data());
    const WeightRef w4{WeightType::Q4, q4.data(), 1, cols, s4.data()};
    w4.row_to_f32(0, back.data());
    for (int64_t k = 0; k < cols; ++k)
      ASSERT_EQ(back[static_cast<size_t>(k)], w4.at(0, k)) << cols << " " << k;
    double max_ratio4 = 0, sum_ratio4 = 0;
    for (int64_t k = 0; k < cols; ++k) {
      const double d = std::fabs(double(bf16_to_f32(s4[static_cast<size_t>(k / 32)])));
      const double r = std::fabs(double(back[static_cast<size_t>(k)]) - double(w[static_cast<size_t>(k)])) / d;
      max_ratio4 = std::max(max_ratio4, r);
      sum_ratio4 += r;
    }
    // The largest |w| maps to −8 (up to the bf16 rounding of the scale, 2^-9 relative); the
    // opposite sign clamps at +7: at most one step plus 8 · 2^-8.
    EXPECT_LE(max_ratio4, 1.0 + 8.0 / 256.0) << cols;
    EXPECT_LE(sum_ratio4 / double(cols), 0.3) << cols;  // ~0.25 for round to nearest

    std::vector<uint8_t> q6(static_cast<size_t>(nb * 24));
    std::vector<uint16_t> s6(static_cast<size_t>(nb));
    QuantizeRowQ6(w.data(), cols, q6.data(), s6.data());
    const WeightRef w6{WeightType::Q6, q6.data(), 1, cols, s6.data()};
    w6.row_to_f32(0, back.data());
    for (int64_t k = 0; k < cols; ++k)
      ASSERT_EQ(back[static_cast<size_t>(k)], w6.at(0, k)) << cols << " " << k;
    double max_ratio6 = 0, sum_ratio6 = 0;
    for (int64_t k = 0; k < cols; ++k) {
      const double d = std::fabs(double(bf16_to_f32(s6[static_cast<size_t>(k / 32)])));
      const double r = std::fabs(double(back[static_cast<size_t>(k)]) - double(w[static_cast<size_t>(k)])) / d;
      max_ratio6 = std::max(max_ratio6, r);
      sum_ratio6 += r;
      // 64 levels: the step is 1/4 of Q4's for the same block (its scale is m/32, not m/8).
      EXPECT_NEAR(double(bf16_to_f32(s6[size_t(k / 32)])) * 4.0, double(bf16_to_f32(s4[size_t(k / 32)])),
                  std::fabs(double(bf16_to_f32(s4[size_t(k / 32)]))) * 0.01);
    }
    EXPECT_LE(max_ratio6, 1.0 + 32.0 / 256.0) << cols;  // as Q4: −32 exact, +31 clamps
    EXPECT_LE(sum_ratio6 / double(cols), 0.3) << cols;
  }
}

// The panel layouts (weight_panels.h), per format: QuantizeMatrix stores every row's blocks
// and scales exactly as the row quantizer makes them for that row alone, every chunk of the
// storage (Q4: dword, Q8: pair) belongs to exactly one (row, block, chunk), and at() and the
// SIMD loaders (row_to_f32) read them back — for full panels and a short last one.
struct Q4Layout {
  using Q = uint8_t;
  using S = uint16_t;
  static constexpr WeightType kType = WeightType::Q4;
  static constexpr int64_t kBlockBytes = 16, kChunkBytes = 4;
  static void QuantizeRow(const float* f, int64_t cols, Q* q, S* s) { QuantizeRowQ4(f, cols, q, s); }
  static void Load(const WeightRef& w, int64_t r, int64_t b, Q* out) {
    LoadQ4Block(static_cast<const Q*>(w.data), w.rows, w.blocks(), r, b, out);
  }
  static int64_t Offset(int64_t rows, int64_t nb, int64_t r, int64_t b, int64_t c) {
    return Q4DwordOffset(rows, nb, r, b, c);
  }
};
struct Q6Layout {
  using Q = uint8_t;
  using S = uint16_t;
  static constexpr WeightType kType = WeightType::Q6;
  static constexpr int64_t kBlockBytes = 24, kChunkBytes = 4;
  static void QuantizeRow(const float* f, int64_t cols, Q* q, S* s) { QuantizeRowQ6(f, cols, q, s); }
  static void Load(const WeightRef& w, int64_t r, int64_t b, Q* out) {
    LoadQ6Block(static_cast<const Q*>(w.data), w.rows, w.blocks(), r, b, out);
  }
  static int64_t Offset(int64_t rows, int64_t nb, int64_t r, int64_t b, int64_t c) {
    return Q6DwordOffset(rows, nb, r, b, c);
  }
};
struct Q8Layout {
  using Q = int8_t;
  using S = float;
  static constexpr WeightType kType = WeightType::Q8;
  static constexpr int64_t kBlockBytes = 32, kChunkBytes = 2;
  static void QuantizeRow(const float* f, int64_t cols, Q* q, S* s) { QuantizeRowQ8(f, cols, q, s); }
  static void Load(const WeightRef& w, int64_t r, int64_t b, Q* out) {
    LoadQ8Block(static_cast<const Q*>(w.data), w.rows, w.blocks(), r, b, out);
  }
  static int64_t Offset(int64_t rows, int64_t nb, int64_t r, int64_t b, int64_t c) {
    return Q8PairOffset(rows, nb, r, b, c);
  }
};

template <class L>
void CheckPanelsHoldEachRowsOwnBlocks() {
  constexpr int64_t kChunks = L::kBlockBytes / L::kChunkBytes;
  for (int64_t rows : {1, 15, 16, 37, 48}) {
    const int64_t cols = 72, nb = QuantBlocks(cols);
    std::mt19937 rng{static_cast<unsigned>(rows)};
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::vector<float> f(static_cast<size_t>(rows * cols));
    for (auto& v : f) v = nd(rng);
    const WeightRef w = QuantizeMatrix(WeightRef{WeightType::F32, f.data(), rows, cols}, L::kType, nullptr);
    std::vector<int> owners(static_cast<size_t>(rows * nb * kChunks), 0), scale_owners(static_cast<size_t>(rows * nb), 0);
    std::vector<typename L::Q> q(static_cast<size_t>(nb * L::kBlockBytes));
    std::vector<typename L::S> s(static_cast<size_t>(nb));
    std::vector<float> widened(static_cast<size_t>(cols));
    for (int64_t r = 0; r < rows; ++r) {
      L::QuantizeRow(f.data() + r * cols, cols, q.data(), s.data());
      for (int64_t b = 0; b < nb; ++b) {
        typename L::Q block[L::kBlockBytes];
        L::Load(w, r, b, block);
        for (int64_t j = 0; j < L::kBlockBytes; ++j)
          ASSERT_EQ(block[j], q[size_t(b * L::kBlockBytes + j)]) << rows << " " << r << " " << b;
        ASSERT_EQ(static_cast<const typename L::S*>(w.scales)[PanelScaleIndex(rows, nb, r, b)], s[size_t(b)]);
        ++scale_owners[size_t(PanelScaleIndex(rows, nb, r, b))];
        for (int64_t c = 0; c < kChunks; ++c) ++owners[size_t(L::Offset(rows, nb, r, b, c) / L::kChunkBytes)];
      }
      const WeightRef one{L::kType, q.data(), 1, cols, s.data()};  // one row: the plain order
      w.row_to_f32(r, widened.data());
      for (int64_t k = 0; k < cols; ++k) {
        ASSERT_EQ(w.at(r, k), one.at(0, k)) << rows << " " << r << " " << k;
        ASSERT_EQ(widened[size_t(k)], one.at(0, k)) << rows << " " << r << " " << k;
      }
    }
    for (int v : owners) ASSERT_EQ(v, 1) << "chunk offsets are not a permutation, rows " << rows;
    for (int v : scale_owners) ASSERT_EQ(v, 1) << "scale indices are not a permutation, rows " << rows;
  }
}

TEST(QuantFormats, Q4PanelsHoldEachRowsOwnBlocks) { CheckPanelsHoldEachRowsOwnBlocks<Q4Layout>(); }
TEST(QuantFormats, Q8PanelsHoldEachRowsOwnBlocks) { CheckPanelsHoldEachRowsOwnBlocks<Q8Layout>(); }
TEST(QuantFormats, Q6PanelsHoldEachRowsOwnBlocks) { CheckPanelsHoldEachRowsOwnBlocks<Q6Layout>(); }

// The Q6 block's bit layout (quant_formats.h), from its definition: every 6-bit value
// 0..63 at every element position survives QuantizeRowQ6's packing and Q6Unsigned's reading,
// and the top bits of element j sit where the kernels' shift-and-mask expects them (bits 4–5
// of byte k of top dword d after the shift for nibble dword c, low and high groups).
TEST(QuantFormats, Q6BitsAreWhereTheKernelsLook) {
  for (int64_t pos = 0; pos < 32; ++pos)
    for (int u = 0; u < 64; ++u) {
      std::vector<float> x(32, 0.0f);
      x[size_t((pos + 1) % 32)] = -32.0f;  // the block's largest magnitude: scale exactly 1
      x[size_t(pos)] = float(u - 32);
      uint8_t blk[24];
      uint16_t sc;
      QuantizeRowQ6(x.data(), 32, blk, &sc);
      ASSERT_EQ(bf16_to_f32(sc), 1.0f);
      ASSERT_EQ(Q6Unsigned(blk, pos), u) << pos << " " << u;
      const int64_t i = pos & 15, c = i / 4, k = i & 3, d = c / 2;
      const bool high = pos >= 16;
      const int shift = (c & 1) ? (high ? -2 : 0) : (high ? 2 : 4);
      const uint8_t top = blk[16 + 4 * d + k];
      const int moved = shift >= 0 ? (top << shift) : (top >> -shift);
      const int nib = high ? blk[i] >> 4 : blk[i] & 0xf;
      ASSERT_EQ((moved & 0x30) | nib, u) << pos << " " << u;
    }
}

TEST(QuantFormats, CompressedTensorsRepackMatchesTheirDequant) {
  // compressed-tensors int4: element k in word k/8 at bits 4(k%8), nibble = q + 8.
  const int64_t cols = 72;  // 2¼ blocks: tail block
  std::mt19937 rng(5);
  std::vector<int> q(static_cast<size_t>(cols));
  for (auto& v : q) v = int(rng() % 16) - 8;
  std::vector<int32_t> words(static_cast<size_t>((cols + 7) / 8), 0);
  for (int64_t k = 0; k < cols; ++k)
    words[static_cast<size_t>(k / 8)] = int32_t(uint32_t(words[static_cast<size_t>(k / 8)]) |
                                   (uint32_t(q[static_cast<size_t>(k)] + 8) << (4 * (k % 8))));
  std::vector<uint16_t> scales = {f32_to_bf16(0.5f), f32_to_bf16(-0.25f), f32_to_bf16(2.0f)};
  std::vector<uint8_t> packed(3 * 16);
  RepackCompressedTensorsQ4Row(words.data(), cols, packed.data());
  std::vector<float> back(static_cast<size_t>(cols));
  const WeightRef w4{WeightType::Q4, packed.data(), 1, cols, scales.data()};
  w4.row_to_f32(0, back.data());
  for (int64_t k = 0; k < cols; ++k)
    EXPECT_EQ(back[static_cast<size_t>(k)], float(q[static_cast<size_t>(k)]) * bf16_to_f32(scales[static_cast<size_t>(k / 32)])) << k;
}

TEST(QuantFormats, ActivationQuantizationIsWithinHalfAStep) {
  std::vector<float> x = {0.f, 1e-3f, -2.f, 5.f, 0.25f, -0.125f, 3.f};
  QuantizedActivations xa;
  QuantizeActivations(x.data(), 1, int64_t(x.size()), &xa);
  ASSERT_EQ(xa.blocks, 1);
  for (size_t k = 0; k < x.size(); ++k)
    EXPECT_LE(std::fabs(double(xa.q[k]) * double(xa.s[0]) - double(x[k])), 0.5 * double(xa.s[0]) * 1.0001);
  for (size_t k = x.size(); k < 32; ++k) EXPECT_EQ(xa.q[k], 0);
}

// The int8-activation Q4 kernels (gemv_int8.h) against their oracle — the same int8 activations
// times the dequantized weights summed in double — so only f32 accumulation error remains:
// a tight gate that a wrong nibble order, scale or pair layout fails by orders of magnitude.
TEST(Int8Kernels, MatchInt8OracleForEveryShapeAndRowCount) {
  if (!Int8KernelsAvailable()) GTEST_SKIP() << "no AVX2 + FMA: int8 kernels unused here";
  for (const char* isa : {"avx2", "avx-vnni", "avx512-vnni"}) {
  if (!SelectInt8KernelIsa(isa)) {
    std::printf("int8 kernels: %s not on this CPU\n", isa);
    continue;
  }
  std::printf("int8 kernels: %s\n", Int8KernelName());
  const Case cases[] = {{1, 64, 40}, {1, 100, 33}, {1, 31, 7}, {2, 96, 18},  {3, 200, 17},
                        {4, 64, 16}, {5, 130, 35}, {7, 257, 9}, {9, 2048, 6}, {1, 2048, 70},
                        {1, 1, 3},   {6, 33, 1},   {1, 288, 5}, {4, 608, 3},  {1, 6144, 4}};
  for (const WeightType type : {WeightType::Q4, WeightType::Q6}) {
    for (const Case& c : cases) {
      std::mt19937 rng(unsigned(c.rows * 31 + c.in * 3 + c.out));
      Built wb = MakeWeights(type, c.out, c.in, rng);
      std::normal_distribution<float> nd(0.0f, 1.0f);
      std::vector<float> x(static_cast<size_t>(c.rows * c.in)), bias(static_cast<size_t>(c.out));
      for (auto& v : x) v = nd(rng);
      for (auto& v : bias) v = nd(rng);
      Int8Activations xa;
      QuantizeActivationsInt8(x.data(), c.rows, c.in, &xa);
      std::vector<float> y(static_cast<size_t>(c.rows * c.out)), ref(y.size());
      if (type == WeightType::Q4) {
        GemvQ4Int8Range(xa, wb.w, bias.data(), y.data(), 0, c.out);
      } else {
        GemvQ6Int8Range(xa, wb.w, bias.data(), y.data(), 0, c.out);
      }
      MatmulInt8Reference(xa, wb.w, bias.data(), ref.data());
      double worst = 0;
      for (int64_t i = 0; i < c.rows; ++i)
        for (int64_t o = 0; o < c.out; ++o) {
          // Scale of the sum: Σ|x·w| bounds every partial sum the f32 accumulator holds.
          double mag = std::fabs(double(bias[size_t(o)]));
          for (int64_t k = 0; k < c.in; ++k) mag += std::fabs(double(x[size_t(i * c.in + k)]) * double(wb.w.at(o, k)));
          const double err = std::fabs(double(y[size_t(i * c.out + o)]) - double(ref[size_t(i * c.out + o)]));
          worst = std::max(worst, err / (mag + 1e-30));
        }
      EXPECT_LE(worst, 2e-6) << Int8KernelName() << " " << WeightTypeName(type) << " " << c.rows
                             << "x" << c.in << "x" << c.out;
    }
  }
  }
  SelectInt8KernelIsa("");
}

// Q4 matrices live in panels of 16 rows, a block's dwords interleaved across the rows
// (weight_panels.h). Negative control: exchange two rows' dwords inside a panel (what a kernel
// reading the wrong lane or the row-by-row layout would see) — the oracle comparison above
// must catch it; and other weight types are refused, not silently wrong.
TEST(Int8Kernels, NegativeControlQ4LanesMixedUpAreCaught) {
  if (!Int8KernelsAvailable()) GTEST_SKIP() << "no AVX2 + FMA";
  std::mt19937 rng(11);
  Built wb = MakeWeights(WeightType::Q4, 40, 256, rng);  // panels of 16, 16 and 8 rows
  std::vector<float> x(256), y(40), ref(40);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (auto& v : x) v = nd(rng);
  Int8Activations xa;
  QuantizeActivationsInt8(x.data(), 1, 256, &xa);
  MatmulInt8Reference(xa, wb.w, nullptr, ref.data());
  const int64_t nb = wb.w.blocks();
  for (int64_t panel_row : {int64_t{3}, int64_t{35}}) {  // a full panel, the short last one
    std::vector<uint8_t> mixed(static_cast<const uint8_t*>(wb.w.data),
                               static_cast<const uint8_t*>(wb.w.data) + WeightBytes(WeightType::Q4, 40, 256) - 40 * nb * 2);
    for (int64_t c = 0; c < 4; ++c)
      std::swap_ranges(mixed.begin() + Q4DwordOffset(40, nb, panel_row, 1, c),
                       mixed.begin() + Q4DwordOffset(40, nb, panel_row, 1, c) + 4,
                       mixed.begin() + Q4DwordOffset(40, nb, panel_row + 1, 1, c));
    WeightRef w = wb.w;
    w.data = mixed.data();
    GemvQ4Int8Range(xa, w, nullptr, y.data(), 0, 40);
    double worst = 0;
    for (int o = 0; o < 40; ++o) worst = std::max(worst, std::fabs(double(y[size_t(o)] - ref[size_t(o)])));
    EXPECT_GT(worst, 1e-2) << "row " << panel_row;
    GemvQ4Int8Range(xa, wb.w, nullptr, y.data(), 0, 40);  // the real layout: within the gate
    worst = 0;
    for (int o = 0; o < 40; ++o) worst = std::max(worst, std::fabs(double(y[size_t(o)] - ref[size_t(o)])));
    EXPECT_LT(worst, 1e-3);
  }
  Built w8 = MakeWeights(WeightType::Q8, 8, 256, rng);
  EXPECT_THROW(GemvQ4Int8Range(xa, w8.w, nullptr, y.data(), 0, 8), glance::Error);
}

// The Q8 panel GEMV reads each lane as its own row: two rows' pairs of one block swapped in
// the storage must move the result away from the oracle (which reads the true layout), for a
// full panel and the short last one; every x86 instruction set this CPU has.
TEST(Int8Kernels, NegativeControlQ8LanesMixedUpAreCaught) {
  if (!Int8KernelsAvailable()) GTEST_SKIP() << "no AVX2 + FMA";
  std::mt19937 rng(12);
  Built wb = MakeWeights(WeightType::Q8, 40, 256, rng);  // panels of 16, 16 and 8 rows
  std::vector<float> x(256), y(40), ref(40);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (auto& v : x) v = nd(rng);
  QuantizedActivations xa;
  QuantizeActivations(x.data(), 1, 256, &xa);
  MatmulInt16Reference(xa, wb.w, nullptr, ref.data());
  const int64_t nb = wb.w.blocks();
  for (const char* isa : {"avx2", "avx-vnni", "avx512-vnni"}) {
    if (!SelectInt8KernelIsa(isa)) continue;
    for (int64_t panel_row : {int64_t{3}, int64_t{35}}) {  // a full panel, the short last one
      std::vector<int8_t> mixed(static_cast<const int8_t*>(wb.w.data),
                                static_cast<const int8_t*>(wb.w.data) + 40 * nb * 32);
      for (int64_t c = 0; c < 16; ++c)
        std::swap_ranges(mixed.begin() + Q8PairOffset(40, nb, panel_row, 1, c),
                         mixed.begin() + Q8PairOffset(40, nb, panel_row, 1, c) + 2,
                         mixed.begin() + Q8PairOffset(40, nb, panel_row + 1, 1, c));
      WeightRef w = wb.w;
      w.data = mixed.data();
      GemvQ8Int16Range(xa, w, nullptr, y.data(), 0, 40);
      double worst = 0;
      for (int o = 0; o < 40; ++o) worst = std::max(worst, std::fabs(double(y[size_t(o)] - ref[size_t(o)])));
      EXPECT_GT(worst, 1e-2) << isa << " row " << panel_row;
      GemvQ8Int16Range(xa, wb.w, nullptr, y.data(), 0, 40);  // the real layout: within the gate
      worst = 0;
      for (int o = 0; o < 40; ++o) worst = std::max(worst, std::fabs(double(y[size_t(o)] - ref[size_t(o)])));
      EXPECT_LT(worst, 1e-3) << isa;
    }
  }
  SelectInt8KernelIsa("");
  Built w4 = MakeWeights(WeightType::Q4, 8, 256, rng);
  EXPECT_THROW(GemvQ8Int16Range(xa, w4.w, nullptr, y.data(), 0, 8), glance::Error);
}

// Q6: the same for the top-bit dwords (chunks 4 and 5 of a block), which the kernel combines
// with the nibbles by shift and mask — two rows' top bits swapped must be caught; every x86
// instruction set this CPU has; other formats refused.
TEST(Int8Kernels, NegativeControlQ6TopBitLanesMixedUpAreCaught) {
  if (!Int8KernelsAvailable()) GTEST_SKIP() << "no AVX2 + FMA";
  std::mt19937 rng(13);
  Built wb = MakeWeights(WeightType::Q6, 40, 256, rng);  // panels of 16, 16 and 8 rows
  std::vector<float> x(256), y(40), ref(40);
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (auto& v : x) v = nd(rng);
  Int8Activations xa;
  QuantizeActivationsInt8(x.data(), 1, 256, &xa);
  MatmulInt8Reference(xa, wb.w, nullptr, ref.data());
  const int64_t nb = wb.w.blocks();
  for (const char* isa : {"avx2", "avx-vnni", "avx512-vnni"}) {
    if (!SelectInt8KernelIsa(isa)) continue;
    for (int64_t panel_row : {int64_t{3}, int64_t{35}}) {  // a full panel, the short last one
      std::vector<uint8_t> mixed(static_cast<const uint8_t*>(wb.w.data),
                                 static_cast<const uint8_t*>(wb.w.data) + 40 * nb * 24);
      for (int64_t c = 4; c < 6; ++c)
        std::swap_ranges(mixed.begin() + Q6DwordOffset(40, nb, panel_row, 1, c),
                         mixed.begin() + Q6DwordOffset(40, nb, panel_row, 1, c) + 4,
                         mixed.begin() + Q6DwordOffset(40, nb, panel_row + 1, 1, c));
      WeightRef w = wb.w;
      w.data = mixed.data();
      GemvQ6Int8Range(xa, w, nullptr, y.data(), 0, 40);
      double worst = 0;
      for (int o = 0; o < 40; ++o) worst = std::max(worst, std::fabs(double(y[size_t(o)] - ref[size_t(o)])));
      EXPECT_GT(worst, 1e-2) << isa << " row " << panel_row;
      GemvQ6Int8Range(xa, wb.w, nullptr, y.data(), 0, 40);  // the real layout: within the gate
      worst = 0;
      for (int o = 0; o < 40; ++o) worst = std::max(worst, std::fabs(double(y[size_t(o)] - ref[size_t(o)])));
      EXPECT_LT(worst, 1e-3) << isa;
    }
  }
  SelectInt8KernelIsa("");
  Built w4 = MakeWeights(WeightType::Q4, 8, 256, rng);
  EXPECT_THROW(GemvQ6Int8Range(xa, w4.w, nullptr, y.data(), 0, 8), glance::Error);
}

TEST(Int8Kernels, ActivationQuantizationIsWithinHalfAStep) {
  std::mt19937 rng(2);
  std::normal_distribution<float> nd(0.0f, 3.0f);
  for (int64_t cols : {1, 7, 32, 33, 64, 100, 2048}) {
    std::vector<float> x(static_cast<size_t>(cols));
    for (auto& v : x) v = nd(rng);
    if (cols > 3) x[2] = 0.0f;
    {
      Int8Activations xa;
      QuantizeActivationsInt8(x.data(), 1, cols, &xa);
      ASSERT_EQ(xa.blocks, QuantBlocks(cols));
      for (int64_t b = 0; b < xa.blocks; ++b) {
        const double d = xa.scale[size_t(b)];
        int sum = 0;
        for (int64_t j = 0; j < 32; ++j) {
          const int64_t k = b * 32 + j;
          const int q = xa.q[size_t(k)];
          sum += q;
          EXPECT_GE(q, -127);
          if (k >= cols) {
            EXPECT_EQ(q, 0) << "padding";
          } else {
            EXPECT_LE(std::fabs(q * d - double(x[size_t(k)])), 0.5 * d * 1.0001 + 1e-30) << cols << " " << k;
          }
        }
        EXPECT_EQ(xa.offset[size_t(b)], 8.0f * float(sum));
      }
    }
  }
}

// MatmulShared (several weights, one thread split) gives every output exactly what Matmul
// gives, for every weight type, row counts on both sides of the GEMM threshold, tiny
// matrices next to big ones, and every kernel path.
TEST(MatmulShared, EqualsSeparateMatmulsBitForBit) {
  ThreadPool pool(2);
  for (const char* variant : {"best", "portable"}) {
    SetInt8KernelsEnabled(std::string(variant) == "best");
    for (WeightType type : {WeightType::F32, WeightType::BF16, WeightType::Q8, WeightType::Q4, WeightType::Q6})
      for (int64_t rows : {1, 2, 3, 5, 70, 130}) {
        std::mt19937 rng(unsigned(rows * 17 + int(type)));
        const int64_t in = 200;
        Built a = MakeWeights(type, 300, in, rng), b = MakeWeights(type, 16, in, rng),
              c = MakeWeights(type, 37, in, rng);
        std::normal_distribution<float> nd(0.0f, 1.0f);
        std::vector<float> x(static_cast<size_t>(rows * in)), bias(37);
        for (auto& v : x) v = nd(rng);
        for (auto& v : bias) v = nd(rng);
        std::vector<float> ya(size_t(rows * 300)), yb(size_t(rows * 16)), yc(size_t(rows * 37));
        std::vector<float> ea(ya.size()), eb(yb.size()), ec(yc.size());
        const MatmulOutput outs[] = {{&a.w, nullptr, ya.data()}, {&b.w, nullptr, yb.data()},
                                     {&c.w, bias.data(), yc.data()}};
        MatmulShared(x.data(), rows, outs, 3, &pool);
        Matmul(x.data(), rows, a.w, nullptr, ea.data(), &pool);
        Matmul(x.data(), rows, b.w, nullptr, eb.data(), &pool);
        Matmul(x.data(), rows, c.w, bias.data(), ec.data(), &pool);
        EXPECT_EQ(ya, ea) << variant << " " << WeightTypeName(type) << " rows " << rows;
        EXPECT_EQ(yb, eb) << variant << " " << WeightTypeName(type) << " rows " << rows;
        EXPECT_EQ(yc, ec) << variant << " " << WeightTypeName(type) << " rows " << rows;
        // Negative control: a different bias must show.
        std::vector<float> yc2(yc.size());
        const MatmulOutput one[] = {{&c.w, nullptr, yc2.data()}};
        MatmulShared(x.data(), rows, one, 1, nullptr);
        EXPECT_NE(yc2, ec);
      }
  }
  SetInt8KernelsEnabled(true);
}

}  // namespace
