// Per-format weight loaders shared by every Highway kernel of the projection family: how a
// weight stored as F32 / BF16 / F16 / Q8 / Q4 (quant_formats.h) becomes f32 — in registers
// (F32Format / Bf16Format / F16Format::Load, for the GEMV dot products) or into a buffer
// (WidenSegment, for the GEMM panels and WeightRef::row_to_f32). Written once here; each
// kernel file includes it inside its own per-target compilation, the Highway "-inl.h" way (the
// include guard toggles with HWY_TARGET, so the file is compiled once per target of the
// including translation unit).
//
// Widening is exact (bf16/f16 → f32, int8/int4 · scale is one f32 multiply), so every kernel
// sees the same f32 weights as WeightRef::at(), the scalar oracle, whatever the target.

// Per-target include guard.
#if defined(GLANCE_KERNELS_CPU_WEIGHT_LOADERS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef GLANCE_KERNELS_CPU_WEIGHT_LOADERS_INL_H_
#undef GLANCE_KERNELS_CPU_WEIGHT_LOADERS_INL_H_
#else
#define GLANCE_KERNELS_CPU_WEIGHT_LOADERS_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <hwy/highway.h>

#include "kernels/cpu/matmul.h"
#include "kernels/cpu/numeric.h"
#include "kernels/cpu/quant_formats.h"
#include "kernels/cpu/weight_panels.h"
#include "kernels/cpu/quant_formats.h"

HWY_BEFORE_NAMESPACE();
namespace glance::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The float formats, as loader types: Stored is the element type in memory, Load widens
// Lanes(df) consecutive elements in registers, ToF32 one element (the scalar tails).
struct F32Format {
  using Stored = float;
  template <class DF>
  static HWY_INLINE hn::Vec<DF> Load(DF df, const float* p) {
    return hn::LoadU(df, p);
  }
  static HWY_INLINE float ToF32(float v) { return v; }
};

struct Bf16Format {
  using Stored = uint16_t;  // bf16 bits: the upper half of an f32
  template <class DF>
  static HWY_INLINE hn::Vec<DF> Load(DF df, const uint16_t* p) {
    const hn::RebindToUnsigned<DF> du32;
    const hn::Rebind<uint16_t, DF> du16;
    return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, hn::LoadU(du16, p))));
  }
  static HWY_INLINE float ToF32(uint16_t v) { return bf16_to_f32(v); }
};

struct F16Format {
  using Stored = uint16_t;  // IEEE half bits
  template <class DF>
  static HWY_INLINE hn::Vec<DF> Load(DF df, const uint16_t* p) {
    const hn::Rebind<hwy::float16_t, DF> dh;
    return hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
  }
  static HWY_INLINE float ToF32(uint16_t v) { return f16_to_f32(v); }
};

// out[r] = Σ x[r·ldx + k]·w[k] over n for R activation rows (R ≤ 3), w widened by Format once
// for all rows: per row four vector accumulators (FMA latency), summed pairwise, then the
// scalar tail. Each row's arithmetic does not depend on R, so the multi-row GEMV
// (gemv_float.cpp) gives a row bit for bit what the one-row GEMV gives it. DotF32 (dot.h) is
// DotWidened<F32Format>. The rows' accumulators are separate variables, not one [R][4] array:
// GCC keeps an array of 8 or 12 512-bit vectors in memory (too big to split into registers),
// which made two rows cost 3.5× one on a 64-wide matrix.
template <class Format, int R>
HWY_INLINE void DotWidenedRows(const float* HWY_RESTRICT x, int64_t ldx,
                               const typename Format::Stored* HWY_RESTRICT w, int64_t n, float* out) {
  static_assert(R >= 1 && R <= 3, "DotWidenedRows takes 1 to 3 rows");
  const hn::ScalableTag<float> df;
  using V = hn::Vec<hn::ScalableTag<float>>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  const float* HWY_RESTRICT x0 = x;
  const float* HWY_RESTRICT x1 = x + (R > 1 ? ldx : 0);
  const float* HWY_RESTRICT x2 = x + (R > 2 ? 2 * ldx : 0);
  V a0 = hn::Zero(df), a1 = a0, a2 = a0, a3 = a0;  // row 0
  V b0 = a0, b1 = a0, b2 = a0, b3 = a0;            // row 1
  V c0 = a0, c1 = a0, c2 = a0, c3 = a0;            // row 2
  int64_t k = 0;
  for (; k + 4 * N <= n; k += 4 * N) {
    const V w0 = Format::Load(df, w + k), w1 = Format::Load(df, w + k + N);
    const V w2 = Format::Load(df, w + k + 2 * N), w3 = Format::Load(df, w + k + 3 * N);
    a0 = hn::MulAdd(hn::LoadU(df, x0 + k), w0, a0);
    a1 = hn::MulAdd(hn::LoadU(df, x0 + k + N), w1, a1);
    a2 = hn::MulAdd(hn::LoadU(df, x0 + k + 2 * N), w2, a2);
    a3 = hn::MulAdd(hn::LoadU(df, x0 + k + 3 * N), w3, a3);
    if constexpr (R > 1) {
      b0 = hn::MulAdd(hn::LoadU(df, x1 + k), w0, b0);
      b1 = hn::MulAdd(hn::LoadU(df, x1 + k + N), w1, b1);
      b2 = hn::MulAdd(hn::LoadU(df, x1 + k + 2 * N), w2, b2);
      b3 = hn::MulAdd(hn::LoadU(df, x1 + k + 3 * N), w3, b3);
    }
    if constexpr (R > 2) {
      c0 = hn::MulAdd(hn::LoadU(df, x2 + k), w0, c0);
      c1 = hn::MulAdd(hn::LoadU(df, x2 + k + N), w1, c1);
      c2 = hn::MulAdd(hn::LoadU(df, x2 + k + 2 * N), w2, c2);
      c3 = hn::MulAdd(hn::LoadU(df, x2 + k + 3 * N), w3, c3);
    }
  }
  for (; k + N <= n; k += N) {
    const V wv = Format::Load(df, w + k);
    a0 = hn::MulAdd(hn::LoadU(df, x0 + k), wv, a0);
    if constexpr (R > 1) b0 = hn::MulAdd(hn::LoadU(df, x1 + k), wv, b0);
    if constexpr (R > 2) c0 = hn::MulAdd(hn::LoadU(df, x2 + k), wv, c0);
  }
  const auto finish = [&](const float* HWY_RESTRICT xr, V s0, V s1, V s2, V s3) {
    float acc = hn::GetLane(hn::SumOfLanes(df, hn::Add(hn::Add(s0, s1), hn::Add(s2, s3))));
    for (int64_t kk = k; kk < n; ++kk) acc += xr[kk] * Format::ToF32(w[kk]);
    return acc;
  };
  out[0] = finish(x0, a0, a1, a2, a3);
  if constexpr (R > 1) out[1] = finish(x1, b0, b1, b2, b3);
  if constexpr (R > 2) out[2] = finish(x2, c0, c1, c2, c3);
}

template <class Format>
HWY_INLINE float DotWidened(const float* HWY_RESTRICT x,
                            const typename Format::Stored* HWY_RESTRICT w, int64_t n) {
  float out;
  DotWidenedRows<Format, 1>(x, 0, w, n, &out);
  return out;
}

// dst[0, len) = src[0, len) widened by Format.
template <class Format>
HWY_INLINE void WidenRun(const typename Format::Stored* HWY_RESTRICT src, int64_t len,
                         float* HWY_RESTRICT dst) {
  const hn::ScalableTag<float> df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  int64_t k = 0;
  for (; k + N <= len; k += N) hn::StoreU(Format::Load(df, src + k), df, dst + k);
  for (; k < len; ++k) dst[k] = Format::ToF32(src[k]);
}

// The quantized formats, block by block (layout: quant_formats.h). Each block is one scale
// and a fixed trip count, so the inner loops vectorise.
// Q8 block b: q[0, n) · scale.
HWY_INLINE void WidenQ8Block(const int8_t* HWY_RESTRICT q, float scale, int64_t n,
                             float* HWY_RESTRICT d) {
  if (n == kQuantBlock) {
    for (int64_t j = 0; j < kQuantBlock; ++j) d[j] = static_cast<float>(q[j]) * scale;
  } else {
    for (int64_t j = 0; j < n; ++j) d[j] = static_cast<float>(q[j]) * scale;
  }
}

// Q4 block: 16 bytes, low nibbles = elements 0..15, high nibbles = 16..31, value nibble − 8.
HWY_INLINE void WidenQ4Block(const uint8_t* HWY_RESTRICT p, float scale, int64_t n,
                             float* HWY_RESTRICT d) {
  if (n == kQuantBlock) {
    for (int j = 0; j < 16; ++j) {
      d[j] = static_cast<float>((p[j] & 0xf) - 8) * scale;
      d[j + 16] = static_cast<float>((p[j] >> 4) - 8) * scale;
    }
  } else {
    for (int64_t j = 0; j < n; ++j) {
      const int nib = j < 16 ? (p[j] & 0xf) : (p[j - 16] >> 4);
      d[j] = static_cast<float>(nib - 8) * scale;
    }
  }
}

// Q6 block: 24 bytes (quant_formats.h), value u − 32.
HWY_INLINE void WidenQ6Block(const uint8_t* HWY_RESTRICT p, float scale, int64_t n,
                             float* HWY_RESTRICT d) {
  for (int64_t j = 0; j < n; ++j) d[j] = static_cast<float>(Q6Unsigned(p, j) - 32) * scale;
}

// W[row][k0, k0 + len) widened to f32 into dst. For Q8/Q4/Q6, k0 must be a multiple of the
// quant block (32) so the segment starts on a block boundary.
HWY_INLINE void WidenSegment(const WeightRef& w, int64_t row, int64_t k0, int64_t len,
                             float* HWY_RESTRICT dst) {
  const int64_t K = w.cols, nb = w.blocks(), b0 = k0 / kQuantBlock;
  switch (w.type) {
    case WeightType::F32:
      std::memcpy(dst, static_cast<const float*>(w.data) + row * K + k0,
                  static_cast<size_t>(len) * sizeof(float));
      return;
    case WeightType::BF16:
      WidenRun<Bf16Format>(static_cast<const uint16_t*>(w.data) + row * K + k0, len, dst);
      return;
    case WeightType::F16:
      WidenRun<F16Format>(static_cast<const uint16_t*>(w.data) + row * K + k0, len, dst);
      return;
    case WeightType::Q8: {  // panel layout: weight_panels.h
      const int8_t* q = static_cast<const int8_t*>(w.data);
      const float* s = static_cast<const float*>(w.scales);
      alignas(32) int8_t block[32];
      for (int64_t b = 0; b * kQuantBlock < len; ++b) {
        LoadQ8Block(q, w.rows, nb, row, b0 + b, block);
        WidenQ8Block(block, s[PanelScaleIndex(w.rows, nb, row, b0 + b)],
                     std::min<int64_t>(kQuantBlock, len - b * kQuantBlock), dst + b * kQuantBlock);
      }
      return;
    }
    case WeightType::Q4: {  // panel layout: weight_panels.h
      const uint8_t* p = static_cast<const uint8_t*>(w.data);
      const uint16_t* s = static_cast<const uint16_t*>(w.scales);
      uint8_t block[16];
      for (int64_t b = 0; b * kQuantBlock < len; ++b) {
        LoadQ4Block(p, w.rows, nb, row, b0 + b, block);
        WidenQ4Block(block, bf16_to_f32(s[PanelScaleIndex(w.rows, nb, row, b0 + b)]),
                     std::min<int64_t>(kQuantBlock, len - b * kQuantBlock), dst + b * kQuantBlock);
      }
      return;
    }
    case WeightType::Q6: {  // panel layout: weight_panels.h
      const uint8_t* p = static_cast<const uint8_t*>(w.data);
      const uint16_t* s = static_cast<const uint16_t*>(w.scales);
      uint8_t block[24];
      for (int64_t b = 0; b * kQuantBlock < len; ++b) {
        LoadQ6Block(p, w.rows, nb, row, b0 + b, block);
        WidenQ6Block(block, bf16_to_f32(s[PanelScaleIndex(w.rows, nb, row, b0 + b)]),
                     std::min<int64_t>(kQuantBlock, len - b * kQuantBlock), dst + b * kQuantBlock);
      }
      return;
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace glance::kernels
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
