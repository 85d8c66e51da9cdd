#include "kernels/npu/bfp16.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/util/error.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/numeric.h"
#include "kernels/cpu/thread_pool.h"

namespace glance::kernels::npu {

namespace {

int BiasedExponent(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return static_cast<int>((bits >> 23) & 0xffu);
}

// Mantissas of `in` at exponent byte e; returns the largest |mantissa| (before clamping).
float Mantissas(const float* in, int e, float* m) {
  float top = 0.0f;
  for (int i = 0; i < kBfpGroup; ++i) {
    m[i] = std::nearbyint(std::ldexp(in[i], 133 - e));  // default rounding: to nearest even
    top = std::max(top, std::fabs(m[i]));
  }
  return top;
}

}  // namespace

void EncodeBlock(const float* in, uint8_t* out) {
  float max_abs = 0.0f;
  for (int i = 0; i < kBfpGroup; ++i)
    if (std::isfinite(in[i])) max_abs = std::max(max_abs, std::fabs(in[i]));
  if (max_abs == 0.0f) {
    std::memset(out, 0, kBfpBlockBytes);
    return;
  }
  int e = BiasedExponent(max_abs);
  float m[kBfpGroup];
  float safe[kBfpGroup];
  for (int i = 0; i < kBfpGroup; ++i) safe[i] = std::isfinite(in[i]) ? in[i] : 0.0f;
  if (Mantissas(safe, e, m) >= 128.0f) Mantissas(safe, ++e, m);  // rounded up past 7 bits
  for (int i = 0; i < kBfpGroup; ++i) out[i] = static_cast<uint8_t>(static_cast<int8_t>(m[i]));
  out[kBfpGroup] = static_cast<uint8_t>(e);
}

void DecodeBlock(const uint8_t* block, float* out) {
  const int e = block[kBfpGroup];
  for (int i = 0; i < kBfpGroup; ++i)
    out[i] = std::ldexp(static_cast<float>(static_cast<int8_t>(block[i])), e - 133);
}

float QuantizeInBlock(float v, float block_max_abs) {
  if (block_max_abs == 0.0f) return 0.0f;
  int ex = 0;
  std::frexp(block_max_abs, &ex);              // max = f·2^ex, f in [0.5, 1)
  int eb = std::max(ex - 1 + 127, 0);          // IEEE biased exponent (0 for subnormals)
  double scale = std::ldexp(1.0, eb - 133);
  if (std::nearbyint(static_cast<double>(block_max_abs) / scale) >= 128.0) scale *= 2.0;
  return static_cast<float>(std::nearbyint(static_cast<double>(v) / scale) * scale);
}

static PackedWeight EmptyPacked(int64_t n, int64_t k, int64_t tile_n) {
  if (n <= 0 || k <= 0 || tile_n <= 0 || tile_n % 8 != 0)
    throw Error("NPU weight packing: bad shape " + std::to_string(n) + "×" + std::to_string(k) +
                " or tile_n " + std::to_string(tile_n) + " (must be a positive multiple of 8)");
  PackedWeight p;
  p.n = n;
  p.k = k;
  p.tile_n = tile_n;
  p.n_pad = RoundUp(n, tile_n);
  p.k_pad = RoundUp(k, kKTile);
  p.bytes.assign(static_cast<size_t>(PackedBytes(p.n_pad, p.k_pad)), 0);  // zero = padding
  return p;
}

// Encodes one W row (= one column n of B) into its blocks.
static void PackRow(PackedWeight& p, int64_t n, const float* row, const char* what) {
  float group[kBfpGroup];
  for (int64_t k0 = 0; k0 < p.k; k0 += kBfpGroup) {
    for (int i = 0; i < kBfpGroup; ++i) {
      const int64_t k = k0 + i;
      group[i] = k < p.k ? row[k] : 0.0f;
      if (!std::isfinite(group[i]))
        throw Error(std::string("NPU weight packing: ") + what + " has a non-finite value at [" +
                    std::to_string(n) + "][" + std::to_string(k) + "]");
    }
    EncodeBlock(group, p.bytes.data() + BlockIndex(n, k0, p.k_pad, p.tile_n) * kBfpBlockBytes);
  }
}

PackedWeight PackWeight(const float* w, int64_t n, int64_t k, int64_t tile_n) {
  PackedWeight p = EmptyPacked(n, k, tile_n);
  for (int64_t r = 0; r < n; ++r) PackRow(p, r, w + r * k, "weight");
  return p;
}

PackedWeight PackWeight(const WeightRef& w, const char* what, int64_t tile_n) {
  PackedWeight p = EmptyPacked(w.rows, w.cols, tile_n);
  std::vector<float> row(static_cast<size_t>(w.cols));
  for (int64_t r = 0; r < w.rows; ++r) {
    w.row_to_f32(r, row.data());
    PackRow(p, r, row.data(), what);
  }
  return p;
}

std::vector<float> UnpackWeight(const PackedWeight& p) {
  std::vector<float> w(static_cast<size_t>(p.n * p.k));
  float vals[kBfpGroup];
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t k0 = 0; k0 < p.k; k0 += kBfpGroup) {
      DecodeBlock(p.bytes.data() + BlockIndex(n, k0, p.k_pad, p.tile_n) * kBfpBlockBytes, vals);
      for (int i = 0; i < kBfpGroup && k0 + i < p.k; ++i) w[static_cast<size_t>(n * p.k + k0 + i)] = vals[i];
    }
  return w;
}

void ValidatePacked(const PackedWeight& p, const char* what) {
  const bool shape_ok = p.n > 0 && p.k > 0 && p.tile_n > 0 && p.tile_n % 8 == 0 &&
                        p.n_pad == RoundUp(p.n, p.tile_n) && p.k_pad == RoundUp(p.k, kKTile);
  if (!shape_ok || static_cast<int64_t>(p.bytes.size()) != PackedBytes(p.n_pad, p.k_pad))
    throw Error(std::string("NPU bundle: packed weight ") + what + " has " +
                std::to_string(p.bytes.size()) + " bytes, expected " +
                std::to_string(shape_ok ? PackedBytes(p.n_pad, p.k_pad) : 0) + " for " +
                std::to_string(p.n) + "×" + std::to_string(p.k) + " at tile_n " +
                std::to_string(p.tile_n) + " (re-export the bundle)");
}

void EmulateGemm(const uint16_t* a, int64_t m, const PackedWeight& w, uint16_t* c,
                 ThreadPool* pool) {
  const int64_t K = w.k_pad, N = w.n_pad;
  std::vector<float> af(static_cast<size_t>(m * K));
  for (size_t i = 0; i < af.size(); ++i) af[i] = bf16_to_f32(a[i]);
  auto stripe = [&](size_t b, size_t e) {
    std::vector<float> col(static_cast<size_t>(K));
    for (int64_t n = static_cast<int64_t>(b) * 8; n < static_cast<int64_t>(e) * 8; ++n) {
      for (int64_t k0 = 0; k0 < K; k0 += kBfpGroup)
        DecodeBlock(w.bytes.data() + BlockIndex(n, k0, K, w.tile_n) * kBfpBlockBytes,
                    col.data() + k0);
      for (int64_t r = 0; r < m; ++r) {
        const float* x = af.data() + r * K;
        float acc = 0.0f;
        for (int64_t k = 0; k < K; ++k) acc += x[k] * col[static_cast<size_t>(k)];
        c[r * N + n] = f32_to_bf16(acc);
      }
    }
  };
  const size_t groups = static_cast<size_t>(N / 8);
  if (pool) pool->ParallelFor(groups, stripe, 1);
  else stripe(0, groups);
}

void ReferenceBfpMatmul(const float* x, int64_t m, const float* w, int64_t n, int64_t k, float* y) {
  std::vector<float> wq(static_cast<size_t>(n * k));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t k0 = 0; k0 < k; k0 += kBfpGroup) {
      const int64_t k1 = std::min(k, k0 + kBfpGroup);
      float mx = 0.0f;
      for (int64_t i = k0; i < k1; ++i) mx = std::max(mx, std::fabs(w[r * k + i]));
      for (int64_t i = k0; i < k1; ++i) wq[static_cast<size_t>(r * k + i)] = QuantizeInBlock(w[r * k + i], mx);
    }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t o = 0; o < n; ++o) {
      float acc = 0.0f;
      for (int64_t j = 0; j < k; ++j) acc += round_bf16(x[i * k + j]) * wq[static_cast<size_t>(o * k + j)];
      y[i * n + o] = round_bf16(acc);
    }
}

}  // namespace glance::kernels::npu
