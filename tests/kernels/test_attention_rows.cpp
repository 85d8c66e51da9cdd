// The one-pass attention of a tile of query rows (kernels/cpu/attention.h AttentionRows*: key
// blocks, online softmax) against its oracle, the three-step scores / softmax / weighted sum
// per row, over f32 and half caches: causal row lengths as prefill gives them (each row its own
// n_keys, several blocks, a partial last block), heads whose length is not a multiple of the
// vector, scores spread wide enough that the running max moves between blocks. A negative
// control shows the bound tells a row that saw one key too few.
// Runs on every compiled Highway target (tests/kernels/CMakeLists.txt).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/cpu/attention.h"
#include "kernels/cpu/numeric.h"
#include "tests/kernels/random_vectors.h"

namespace gk = glance::kernels;

namespace {

struct Case {
  int64_t rows, d, n;  // n: cache rows; the rows' n_keys end at n
  float q_scale;       // larger: wider scores, a max that moves
};

// Row r of `rows` (groups of 4 rows share a position, as a GQA group of 4 at one token) sees
// keys up to its position: n - rows/4 + r/4 + 1, at least 1.
std::vector<int64_t> CausalLengths(int64_t rows, int64_t n) {
  std::vector<int64_t> len(static_cast<size_t>(rows));
  const int64_t positions = (rows + 3) / 4;
  for (int64_t r = 0; r < rows; ++r) len[static_cast<size_t>(r)] = std::max<int64_t>(1, n - positions + r / 4 + 1);
  return len;
}

// The attention of every row in double precision from the same (f32 or widened half) rows.
std::vector<double> Exact(const float* q, int64_t q_stride, const std::vector<int64_t>& len, const float* keys,
                          const float* values, int64_t kv_stride, int64_t d, float scale, int64_t out_stride) {
  std::vector<double> out(len.size() * static_cast<size_t>(out_stride), 0.0);
  for (size_t r = 0; r < len.size(); ++r) {
    const int64_t n = len[r];
    std::vector<double> p(static_cast<size_t>(n));
    double peak = -1e300, sum = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (int64_t i = 0; i < d; ++i)
        s += static_cast<double>(q[static_cast<int64_t>(r) * q_stride + i]) * static_cast<double>(keys[j * kv_stride + i]);
      p[static_cast<size_t>(j)] = s * static_cast<double>(scale);
      peak = std::max(peak, p[static_cast<size_t>(j)]);
    }
    for (double& x : p) sum += (x = std::exp(x - peak));
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < d; ++i)
        out[r * static_cast<size_t>(out_stride) + static_cast<size_t>(i)] +=
            p[static_cast<size_t>(j)] / sum * static_cast<double>(values[j * kv_stride + i]);
  }
  return out;
}

// max |got − exact| over the rows' outputs (not the padding), relative to the largest |value|.
double RelativeError(const std::vector<float>& got, const std::vector<double>& exact, int64_t rows, int64_t d,
                     int64_t out_stride, const std::vector<float>& values) {
  double peak = 1e-30, err = 0.0;
  for (float v : values) peak = std::max(peak, static_cast<double>(std::fabs(v)));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < d; ++i) {
      const size_t k = static_cast<size_t>(r * out_stride + i);
      err = std::max(err, std::fabs(static_cast<double>(got[k]) - exact[k]));
    }
  return err / peak;
}

// f32 sums of n rounded terms drift like a random walk: 3 u √n (u = 2^-24) of the largest value,
// plus 1e-6 for the scores' own rounding and Exp's ≤ 2 ulp. The per-row oracle must meet it
// too, so the bound is no looser than the arithmetic the engine always had.
double Bound(int64_t n) { return 3.0 * std::ldexp(1.0, -24) * std::sqrt(static_cast<double>(n)) + 1e-6; }

std::vector<float> Widened(const std::vector<uint16_t>& h) {
  std::vector<float> f(h.size());
  for (size_t i = 0; i < h.size(); ++i) f[i] = gk::f16_to_f32(h[i]);
  return f;
}

TEST(AttentionRows, MatchesThePerRowOracle) {
  const Case cases[] = {{1, 256, 1, 1.0f},   {4, 256, 8192, 1.0f}, {8, 256, 130, 1.0f}, {12, 128, 64, 1.0f},
                        {19, 100, 333, 1.0f}, {5, 7, 65, 1.0f},     {16, 64, 200, 8.0f}, {3, 40, 129, 30.0f}};
  for (const Case& c : cases) {
    const int64_t q_stride = c.d + 5, out_stride = c.d + 2, kv_stride = c.d + 3;
    const auto q = gk::testing::RandomNormal(static_cast<size_t>(c.rows * q_stride), 1, c.q_scale);
    auto keys = gk::testing::RandomNormal(static_cast<size_t>(c.n * kv_stride), 2);
    // Later keys lean towards the queries' mean direction: the max grows block after block.
    for (int64_t j = 0; j < c.n; ++j)
      for (int64_t i = 0; i < c.d; ++i) keys[static_cast<size_t>(j * kv_stride + i)] += 0.002f * static_cast<float>(j) * q[static_cast<size_t>(i)];
    const auto values = gk::testing::RandomNormal(static_cast<size_t>(c.n * kv_stride), 3);
    std::vector<uint16_t> keys16(keys.size()), values16(values.size());
    gk::RoundToF16(keys.data(), static_cast<int64_t>(keys.size()), keys16.data());
    gk::RoundToF16(values.data(), static_cast<int64_t>(values.size()), values16.data());
    const std::vector<int64_t> len = CausalLengths(c.rows, c.n);
    const float scale = 1.0f / std::sqrt(static_cast<float>(c.d));
    const size_t out_size = static_cast<size_t>(c.rows * out_stride);
    std::vector<float> got(out_size, 0.0f), want(out_size, 0.0f);
    const double bound = Bound(c.n);
    const auto exact = Exact(q.data(), q_stride, len, keys.data(), values.data(), kv_stride, c.d, scale, out_stride);
    gk::AttentionRows(q.data(), q_stride, len.data(), c.rows, keys.data(), values.data(), kv_stride, c.d, scale,
                      got.data(), out_stride);
    gk::AttentionRowsReference(q.data(), q_stride, len.data(), c.rows, keys.data(), values.data(), kv_stride, c.d,
                               scale, want.data(), out_stride);
    EXPECT_LE(RelativeError(got, exact, c.rows, c.d, out_stride, values), bound)
        << "f32 rows=" << c.rows << " d=" << c.d << " n=" << c.n;
    EXPECT_LE(RelativeError(want, exact, c.rows, c.d, out_stride, values), bound) << "the oracle, f32 n=" << c.n;
    const auto keys_w = Widened(keys16), values_w = Widened(values16);
    const auto exact16 = Exact(q.data(), q_stride, len, keys_w.data(), values_w.data(), kv_stride, c.d, scale, out_stride);
    std::fill(got.begin(), got.end(), 0.0f);
    gk::AttentionRowsF16(q.data(), q_stride, len.data(), c.rows, keys16.data(), values16.data(), kv_stride, c.d,
                         scale, got.data(), out_stride);
    gk::AttentionRowsF16Reference(q.data(), q_stride, len.data(), c.rows, keys16.data(), values16.data(), kv_stride,
                                  c.d, scale, want.data(), out_stride);
    EXPECT_LE(RelativeError(got, exact16, c.rows, c.d, out_stride, values_w), bound)
        << "f16 rows=" << c.rows << " d=" << c.d << " n=" << c.n;
    EXPECT_LE(RelativeError(want, exact16, c.rows, c.d, out_stride, values_w), bound) << "the oracle, f16 n=" << c.n;
    // The padding between rows is left alone.
    for (int64_t r = 0; r < c.rows; ++r)
      for (int64_t i = c.d; i < out_stride; ++i) ASSERT_EQ(got[static_cast<size_t>(r * out_stride + i)], 0.0f);
  }
}

// A row's output does not depend on the rows it shares a tile with: one row at a time gives
// bit for bit what a tile of rows with other lengths gives (speculative decoding's verify rows
// must equal plain decoding's, tests/engine/test_speculative.cpp).
TEST(AttentionRows, ARowIsTheSameInAnyTile) {
  const int64_t rows = 11, d = 128, n = 150;
  const auto q = gk::testing::RandomNormal(static_cast<size_t>(rows * d), 7, 3.0f);
  const auto keys = gk::testing::RandomNormal(static_cast<size_t>(n * d), 8);
  const auto values = gk::testing::RandomNormal(static_cast<size_t>(n * d), 9);
  std::vector<uint16_t> keys16(keys.size()), values16(values.size());
  gk::RoundToF16(keys.data(), static_cast<int64_t>(keys.size()), keys16.data());
  gk::RoundToF16(values.data(), static_cast<int64_t>(values.size()), values16.data());
  // Lengths around block and vector edges: 63, 64, 65, 79, 80, ... within one tile.
  const std::vector<int64_t> len = {63, 64, 65, 79, 80, 81, 127, 128, 129, 1, 150};
  std::vector<float> tile(static_cast<size_t>(rows * d)), one(tile.size());
  for (bool half : {false, true}) {
    auto run = [&](int64_t r0, int64_t count, float* out) {
      if (half)
        gk::AttentionRowsF16(q.data() + r0 * d, d, len.data() + r0, count, keys16.data(), values16.data(), d, d, 0.1f,
                             out + r0 * d, d);
      else
        gk::AttentionRows(q.data() + r0 * d, d, len.data() + r0, count, keys.data(), values.data(), d, d, 0.1f,
                          out + r0 * d, d);
    };
    run(0, rows, tile.data());
    for (int64_t r = 0; r < rows; ++r) run(r, 1, one.data());
    for (size_t i = 0; i < tile.size(); ++i) ASSERT_EQ(tile[i], one[i]) << (half ? "f16" : "f32") << " element " << i;
  }
}

// Negative control: the exact attention with every row one key short differs from the kernel
// by far more than the bound, so the bound can see a kernel that drops the last key of a row.
TEST(AttentionRows, NegativeControlOneKeyShortIsCaught) {
  const int64_t rows = 8, d = 64, n = 96;
  const auto q = gk::testing::RandomNormal(static_cast<size_t>(rows * d), 4);
  const auto keys = gk::testing::RandomNormal(static_cast<size_t>(n * d), 5);
  const auto values = gk::testing::RandomNormal(static_cast<size_t>(n * d), 6);
  std::vector<int64_t> len = CausalLengths(rows, n), shorter = len;
  for (int64_t& l : shorter) l -= 1;
  std::vector<float> got(static_cast<size_t>(rows * d));
  gk::AttentionRows(q.data(), d, len.data(), rows, keys.data(), values.data(), d, d, 0.125f, got.data(), d);
  const auto exact_short = Exact(q.data(), d, shorter, keys.data(), values.data(), d, d, 0.125f, d);
  EXPECT_GT(RelativeError(got, exact_short, rows, d, d, values), 100 * Bound(n));
  // ... and the same comparison against the right lengths passes.
  const auto exact = Exact(q.data(), d, len, keys.data(), values.data(), d, d, 0.125f, d);
  EXPECT_LE(RelativeError(got, exact, rows, d, d, values), Bound(n));
}

}  // namespace
