// Highway dynamic dispatch: this file is compiled once per SIMD target (pattern: dot.cpp).
// Each kernel is written once over the cache's storage format (F32Format / F16Format from
// weight_loaders-inl.h: Load widens a vector of stored elements to f32, exactly); the f32
// instantiation is the loop this file always had, so the f32 path is unchanged bit for bit.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/attention.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/cache_control.h>
#include <hwy/highway.h>
// Exp for the online softmax's block of probabilities.
#include <hwy/contrib/math/math-inl.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/activations.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/numeric.h"
#include "kernels/cpu/weight_loaders-inl.h"

HWY_BEFORE_NAMESPACE();
namespace glance::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Two accumulators (not DotWidened's four): the order the f32 attention has always summed in.
template <class Format>
float AttentionDot(const float* a, const typename Format::Stored* b, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  auto s0 = hn::Zero(d), s1 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    s0 = hn::MulAdd(hn::LoadU(d, a + i), Format::Load(d, b + i), s0);
    s1 = hn::MulAdd(hn::LoadU(d, a + i + N), Format::Load(d, b + i + N), s1);
  }
  for (; i + N <= n; i += N) s0 = hn::MulAdd(hn::LoadU(d, a + i), Format::Load(d, b + i), s0);
  float acc = hn::GetLane(hn::SumOfLanes(d, hn::Add(s0, s1)));
  for (; i < n; ++i) acc += a[i] * Format::ToF32(b[i]);
  return acc;
}

template <class Format>
void ScoresOf(const float* q, const typename Format::Stored* keys, int64_t key_stride, int64_t n,
              int64_t dim, float scale, float* scores) {
  for (int64_t j = 0; j < n; ++j) scores[j] = AttentionDot<Format>(q, keys + j * key_stride, dim) * scale;
}

// AttentionRows* (attention.h): tiles of up to kRowTile rows; per block of kKeyBlock keys the
// tile's scores (each key row loaded once and dotted with every row of the tile), the online
// softmax step, and the block's values added into the tile's f32 accumulators (each value row
// loaded once per tile and vector of the head). acc holds kRowTile·dim floats.
constexpr int64_t kRowTile = 8;
constexpr int64_t kKeyBlock = 64;

template <class T>
HWY_INLINE void PrefetchRows(const T* keys, const T* values, int64_t kv_stride, int64_t dim, int64_t line,
                             int64_t begin, int64_t end) {
  for (int64_t j = begin; j < end; ++j)
    for (int64_t i = 0; i < dim; i += line) {
      hwy::Prefetch(keys + j * kv_stride + i);
      hwy::Prefetch(values + j * kv_stride + i);
    }
}

// Score folding: a row's dot product with a key is a vector of partial sums over the head; the
// vector is first halved down to one 128-bit block (4 partials: lanes l, l+4, l+8, ... added,
// upper half onto lower), stored, and after the block's keys four keys' blocks at a time are
// transposed and added into one vector of four sums (lanes 0+2 and 1+3, then those two). One
// fixed order per key whatever the tile, so a row's scores do not depend on the rows beside it;
// 2-3 instructions a key and row where a whole horizontal sum took ~10.
#undef GLANCE_FOLD_SCORES  // this file is compiled once per target
#if !HWY_HAVE_SCALABLE && HWY_TARGET != HWY_SCALAR
#define GLANCE_FOLD_SCORES 1
template <class D>
HWY_INLINE hn::Vec<hn::Full128<float>> HalveToBlock(D d, hn::Vec<D> v) {
  if constexpr (hn::MaxLanes(D()) * sizeof(float) > 16) {
    const hn::Half<D> dh;
    return HalveToBlock(dh, hn::Add(hn::LowerHalf(dh, v), hn::UpperHalf(dh, v)));
  } else {
    (void)d;
    return v;
  }
}

// out[k] = the sum of the 4 floats at part + 4·k, k = 0..3.
HWY_INLINE hn::Vec<hn::Full128<float>> FoldFour(const float* part) {
  const hn::Full128<float> d4;
  const hn::Full128<double> d2;
  const auto p0 = hn::Load(d4, part), p1 = hn::Load(d4, part + 4), p2 = hn::Load(d4, part + 8),
             p3 = hn::Load(d4, part + 12);
  // [p0_0+p0_2, p1_0+p1_2, p0_1+p0_3, p1_1+p1_3], the same for p2, p3.
  const auto u01 = hn::Add(hn::InterleaveLower(d4, p0, p1), hn::InterleaveUpper(d4, p0, p1));
  const auto u23 = hn::Add(hn::InterleaveLower(d4, p2, p3), hn::InterleaveUpper(d4, p2, p3));
  const auto a = hn::BitCast(d2, u01), b = hn::BitCast(d2, u23);
  return hn::Add(hn::BitCast(d4, hn::InterleaveLower(d2, a, b)), hn::BitCast(d4, hn::InterleaveUpper(d2, a, b)));
}
#else
#define GLANCE_FOLD_SCORES 0
#endif

// R is a template argument and the loops over the tile's rows are unrolled, so the per-row
// vectors (a[R], o[R]) stay in registers (a runtime R, or GCC leaving the loops rolled, kept
// them on the stack: a store per FMA in the score loop).
#define GLANCE_UNROLL_ROWS _Pragma("GCC unroll 8")
template <class Format, int64_t R>
void RowTileOf(const float* q, int64_t q_stride, const int64_t* n_keys,
               const typename Format::Stored* keys, const typename Format::Stored* values,
               int64_t kv_stride, int64_t dim, float scale, float* out, int64_t out_stride, float* acc) {
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const float kNegInf = -std::numeric_limits<float>::infinity();
  float m[kRowTile], l[kRowTile];
  HWY_ALIGN float s[kRowTile][kKeyBlock];
#if GLANCE_FOLD_SCORES
  HWY_ALIGN float part[kRowTile][kKeyBlock][4];  // each (row, key)'s dot product halved to 4 partials
  float tail[kRowTile][kKeyBlock];               // ... and the head's last dim % N products
#endif
  int64_t n_max = 0;
  for (int64_t r = 0; r < R; ++r) {
    m[r] = kNegInf;
    l[r] = 0.0f;
    n_max = std::max(n_max, n_keys[r]);
  }
  std::fill(acc, acc + R * dim, 0.0f);
  for (int64_t kb = 0; kb < n_max; kb += kKeyBlock) {
    const int64_t jn = std::min(kKeyBlock, n_max - kb);
    // Key and value rows are fetched kAhead rows before the scores loop reaches them (the
    // value rows are read below a vector column at a time, a 512-byte stride the hardware
    // prefetcher does not follow): from a cold cache, as in decode where the weights have just
    // streamed through, the memory then arrives while the tile computes.
    constexpr int64_t kLine = 64 / sizeof(typename Format::Stored), kAhead = 64;
    if (kb == 0) PrefetchRows(keys, values, kv_stride, dim, kLine, 0, std::min(kAhead, n_max));
    // Scores: q_r · key_j, one accumulator per row (R independent FMA chains).
    for (int64_t j = 0; j < jn; ++j) {
      if (kb + j + kAhead < n_max) PrefetchRows(keys, values, kv_stride, dim, kLine, kb + j + kAhead, kb + j + kAhead + 1);
      const auto* key = keys + (kb + j) * kv_stride;
      V a[kRowTile];
      GLANCE_UNROLL_ROWS
      for (int64_t r = 0; r < R; ++r) a[r] = hn::Zero(d);
      int64_t i = 0;
      for (; i + N <= dim; i += N) {
        const V k = Format::Load(d, key + i);
        GLANCE_UNROLL_ROWS
        for (int64_t r = 0; r < R; ++r) a[r] = hn::MulAdd(hn::LoadU(d, q + r * q_stride + i), k, a[r]);
      }
#if GLANCE_FOLD_SCORES
      GLANCE_UNROLL_ROWS
      for (int64_t r = 0; r < R; ++r) {
        hn::Store(HalveToBlock(d, a[r]), hn::Full128<float>(), part[r][j]);
        float rest = 0.0f;
        for (int64_t t = i; t < dim; ++t) rest += q[r * q_stride + t] * Format::ToF32(key[t]);
        tail[r][j] = rest;
      }
#else
      GLANCE_UNROLL_ROWS
      for (int64_t r = 0; r < R; ++r) {
        float dot = hn::GetLane(hn::SumOfLanes(d, a[r]));
        for (int64_t t = i; t < dim; ++t) dot += q[r * q_stride + t] * Format::ToF32(key[t]);
        s[r][j] = kb + j < n_keys[r] ? dot * scale : kNegInf;
      }
#endif
    }
#if GLANCE_FOLD_SCORES
    {
      // The block's scores, four keys a pass; the keys past jn (up to a multiple of 4) are
      // zeros, and the softmax below masks every key past a row's own length.
      const hn::Full128<float> d4;
      const int64_t jn4 = (jn + 3) / 4 * 4;
      for (int64_t r = 0; r < R; ++r) {
        for (int64_t j = jn; j < jn4; ++j) {
          std::fill(part[r][j], part[r][j] + 4, 0.0f);
          tail[r][j] = 0.0f;
        }
        for (int64_t j = 0; j < jn4; j += 4)
          hn::Store(hn::Mul(hn::Add(FoldFour(part[r][j]), hn::LoadU(d4, tail[r] + j)), hn::Set(d4, scale)), d4,
                    s[r] + j);
      }
    }
#endif
    // Online softmax: s becomes exp(s - m_new); the running sum and output are rescaled by
    // exp(m_old - m_new). Each row works on its own keys of the block (jr), padded to whole
    // vectors with masked entries, so its arithmetic is the same in any tile (a verify
    // batch's rows equal plain decoding's bit for bit); the rest of the block's columns are 0.
    for (int64_t r = 0; r < R; ++r) {
      const int64_t jr = std::clamp<int64_t>(n_keys[r] - kb, 0, jn);
      const int64_t padded = std::min(kKeyBlock, (jr + N - 1) / N * N);
      std::fill(s[r] + jr, s[r] + padded, kNegInf);
      float bm = kNegInf;
      for (int64_t j = 0; j < jr; ++j) bm = std::max(bm, s[r][j]);
      if (jr == 0) {  // every key of this block is past the row's own position
        std::fill(s[r], s[r] + jn, 0.0f);
        continue;
      }
      const float m_new = std::max(m[r], bm);
      const float c = std::exp(m[r] - m_new);  // exp(-inf) = 0 on the first block
      const V vm = hn::Set(d, m_new), floor = hn::Set(d, -88.0f), masked = hn::Set(d, kNegInf);
      V sum = hn::Zero(d);
      for (int64_t j = 0; j < padded; j += N) {
        // Exp's range ends near -88 (below it the weight is < 1e-38 of the max's anyway); a
        // masked key's weight is exactly 0.
        const V x = hn::Load(d, s[r] + j);
        const V e = hn::IfThenZeroElse(hn::Eq(x, masked), hn::Exp(d, hn::Max(hn::Sub(x, vm), floor)));
        hn::Store(e, d, s[r] + j);
        sum = hn::Add(sum, e);
      }
      std::fill(s[r] + padded, s[r] + std::max(padded, jn), 0.0f);
      l[r] = l[r] * c + hn::GetLane(hn::SumOfLanes(d, sum));
      m[r] = m_new;
      if (c != 1.0f) {
        const V vc = hn::Set(d, c);
        float* ar = acc + r * dim;
        int64_t i = 0;
        for (; i + N <= dim; i += N) hn::StoreU(hn::Mul(hn::LoadU(d, ar + i), vc), d, ar + i);
        for (; i < dim; ++i) ar[i] *= c;
      }
    }
    // acc_r += Σ_j p_rj · value_j, a vector of the head at a time for the whole tile.
    int64_t i = 0;
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
    // With 32 vector registers, two vectors of the head a pass: each p_rj is broadcast once for
    // both, and a pass reads whole 64-byte lines of an f16 value row (a vector of 16 halves is
    // half a line, which the one-vector loop fetched twice, from L2 once the block's keys and
    // values fill L1). Every acc element still sums its keys in order j = 0, 1, ...: the same
    // result bit for bit.
    for (; i + 2 * N <= dim; i += 2 * N) {
      V o0[kRowTile], o1[kRowTile];
      GLANCE_UNROLL_ROWS
      for (int64_t r = 0; r < R; ++r) {
        o0[r] = hn::LoadU(d, acc + r * dim + i);
        o1[r] = hn::LoadU(d, acc + r * dim + i + N);
      }
      for (int64_t j = 0; j < jn; ++j) {
        const auto* row = values + (kb + j) * kv_stride + i;
        const V v0 = Format::Load(d, row), v1 = Format::Load(d, row + N);
        GLANCE_UNROLL_ROWS
        for (int64_t r = 0; r < R; ++r) {
          const V p = hn::Set(d, s[r][j]);
          o0[r] = hn::MulAdd(p, v0, o0[r]);
          o1[r] = hn::MulAdd(p, v1, o1[r]);
        }
      }
      GLANCE_UNROLL_ROWS
      for (int64_t r = 0; r < R; ++r) {
        hn::StoreU(o0[r], d, acc + r * dim + i);
        hn::StoreU(o1[r], d, acc + r * dim + i + N);
      }
    }
#endif
    for (; i + N <= dim; i += N) {
      V o[kRowTile];
      GLANCE_UNROLL_ROWS
      for (int64_t r = 0; r < R; ++r) o[r] = hn::LoadU(d, acc + r * dim + i);
      for (int64_t j = 0; j < jn; ++j) {
        const V v = Format::Load(d, values + (kb + j) * kv_stride + i);
        GLANCE_UNROLL_ROWS
        for (int64_t r = 0; r < R; ++r) o[r] = hn::MulAdd(hn::Set(d, s[r][j]), v, o[r]);
      }
      GLANCE_UNROLL_ROWS
      for (int64_t r = 0; r < R; ++r) hn::StoreU(o[r], d, acc + r * dim + i);
    }
    for (; i < dim; ++i)
      for (int64_t j = 0; j < jn; ++j)
        for (int64_t r = 0; r < R; ++r) acc[r * dim + i] += s[r][j] * Format::ToF32(values[(kb + j) * kv_stride + i]);
  }
  for (int64_t r = 0; r < R; ++r) {
    const V inv = hn::Set(d, 1.0f / l[r]);
    const float* ar = acc + r * dim;
    float* o = out + r * out_stride;
    int64_t i = 0;
    for (; i + N <= dim; i += N) hn::StoreU(hn::Mul(hn::LoadU(d, ar + i), inv), d, o + i);
    for (; i < dim; ++i) o[i] = ar[i] / l[r];
  }
}

template <class Format, class... Args>
void TileOf(int64_t rows, Args... args) {
  static_assert(kRowTile == 8, "one case per tile height");
  switch (rows) {
    case 1: return RowTileOf<Format, 1>(args...);
    case 2: return RowTileOf<Format, 2>(args...);
    case 3: return RowTileOf<Format, 3>(args...);
    case 4: return RowTileOf<Format, 4>(args...);
    case 5: return RowTileOf<Format, 5>(args...);
    case 6: return RowTileOf<Format, 6>(args...);
    case 7: return RowTileOf<Format, 7>(args...);
    default: return RowTileOf<Format, 8>(args...);
  }
}

template <class Format>
void RowsOf(const float* q, int64_t q_stride, const int64_t* n_keys, int64_t rows,
            const typename Format::Stored* keys, const typename Format::Stored* values, int64_t kv_stride,
            int64_t dim, float scale, float* out, int64_t out_stride) {
  std::vector<float> acc(static_cast<size_t>(kRowTile * dim));
  for (int64_t r0 = 0; r0 < rows; r0 += kRowTile)
    TileOf<Format>(std::min(kRowTile, rows - r0), q + r0 * q_stride, q_stride, n_keys + r0, keys, values, kv_stride,
                   dim, scale, out + r0 * out_stride, out_stride, acc.data());
}

void AttentionRowsF32(const float* q, int64_t q_stride, const int64_t* n_keys, int64_t rows, const float* keys,
                      const float* values, int64_t kv_stride, int64_t dim, float scale, float* out,
                      int64_t out_stride) {
  RowsOf<F32Format>(q, q_stride, n_keys, rows, keys, values, kv_stride, dim, scale, out, out_stride);
}
void AttentionRowsF16Impl(const float* q, int64_t q_stride, const int64_t* n_keys, int64_t rows,
                          const uint16_t* keys, const uint16_t* values, int64_t kv_stride, int64_t dim,
                          float scale, float* out, int64_t out_stride) {
  RowsOf<F16Format>(q, q_stride, n_keys, rows, keys, values, kv_stride, dim, scale, out, out_stride);
}

void AttentionScoresF32(const float* q, const float* keys, int64_t key_stride, int64_t n,
                        int64_t dim, float scale, float* scores) {
  ScoresOf<F32Format>(q, keys, key_stride, n, dim, scale, scores);
}
void AttentionScoresF16Impl(const float* q, const uint16_t* keys, int64_t key_stride, int64_t n,
                         int64_t dim, float scale, float* scores) {
  ScoresOf<F16Format>(q, keys, key_stride, n, dim, scale, scores);
}

}  // namespace HWY_NAMESPACE
}  // namespace glance::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace glance::kernels {
HWY_EXPORT(AttentionScoresF32);
HWY_EXPORT(AttentionScoresF16Impl);
HWY_EXPORT(AttentionRowsF32);
HWY_EXPORT(AttentionRowsF16Impl);

void AttentionRows(const float* q, int64_t q_stride, const int64_t* n_keys, int64_t rows,
                   const float* keys, const float* values, int64_t kv_stride, int64_t d, float scale,
                   float* out, int64_t out_stride) {
  HWY_DYNAMIC_DISPATCH(AttentionRowsF32)(q, q_stride, n_keys, rows, keys, values, kv_stride, d, scale, out, out_stride);
}
void AttentionRowsF16(const float* q, int64_t q_stride, const int64_t* n_keys, int64_t rows,
                      const uint16_t* keys_f16, const uint16_t* values_f16, int64_t kv_stride, int64_t d,
                      float scale, float* out, int64_t out_stride) {
  HWY_DYNAMIC_DISPATCH(AttentionRowsF16Impl)(q, q_stride, n_keys, rows, keys_f16, values_f16, kv_stride, d,
                                             scale, out, out_stride);
}

void AttentionScores(const float* q, const float* keys, int64_t key_stride, int64_t n, int64_t d,
                     float scale, float* scores) {
  HWY_DYNAMIC_DISPATCH(AttentionScoresF32)(q, keys, key_stride, n, d, scale, scores);
}
void AttentionScoresF16(const float* q, const uint16_t* keys_f16, int64_t key_stride, int64_t n,
                        int64_t d, float scale, float* scores) {
  HWY_DYNAMIC_DISPATCH(AttentionScoresF16Impl)(q, keys_f16, key_stride, n, d, scale, scores);
}


namespace {
float ToF32(float v) { return v; }
float ToF32(uint16_t v) { return f16_to_f32(v); }

// The scalar oracles, once for both storage formats.
template <class T>
void ScoresReference(const float* q, const T* keys, int64_t key_stride, int64_t n, int64_t d,
                     float scale, float* scores) {
  for (int64_t j = 0; j < n; ++j) {
    float s = 0.0f;
    for (int64_t i = 0; i < d; ++i) s += q[i] * ToF32(keys[j * key_stride + i]);
    scores[j] = s * scale;
  }
}

template <class T>
void WeightedSumReference(const float* p, const T* values, int64_t value_stride, int64_t n,
                          int64_t d, float* out) {
  for (int64_t i = 0; i < d; ++i) out[i] = 0.0f;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < d; ++i) out[i] += p[j] * ToF32(values[j * value_stride + i]);
}
// The three-step oracle per row, over the first n_keys[r] rows of the cache.
template <class T>
void RowsReference(const float* q, int64_t q_stride, const int64_t* n_keys, int64_t rows, const T* keys,
                   const T* values, int64_t kv_stride, int64_t d, float scale, float* out, int64_t out_stride) {
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<float> p(static_cast<size_t>(n_keys[r]));
    ScoresReference(q + r * q_stride, keys, kv_stride, n_keys[r], d, scale, p.data());
    SoftmaxInPlace(p.data(), n_keys[r]);
    WeightedSumReference(p.data(), values, kv_stride, n_keys[r], d, out + r * out_stride);
  }
}
}  // namespace

void AttentionRowsReference(const float* q, int64_t q_stride, const int64_t* n_keys, int64_t rows,
                            const float* keys, const float* values, int64_t kv_stride, int64_t d,
                            float scale, float* out, int64_t out_stride) {
  RowsReference(q, q_stride, n_keys, rows, keys, values, kv_stride, d, scale, out, out_stride);
}
void AttentionRowsF16Reference(const float* q, int64_t q_stride, const int64_t* n_keys, int64_t rows,
                               const uint16_t* keys_f16, const uint16_t* values_f16, int64_t kv_stride,
                               int64_t d, float scale, float* out, int64_t out_stride) {
  RowsReference(q, q_stride, n_keys, rows, keys_f16, values_f16, kv_stride, d, scale, out, out_stride);
}

void AttentionScoresReference(const float* q, const float* keys, int64_t key_stride, int64_t n,
                              int64_t d, float scale, float* scores) {
  ScoresReference(q, keys, key_stride, n, d, scale, scores);
}
void AttentionScoresF16Reference(const float* q, const uint16_t* keys_f16, int64_t key_stride,
                                 int64_t n, int64_t d, float scale, float* scores) {
  ScoresReference(q, keys_f16, key_stride, n, d, scale, scores);
}


void RoundToF16(const float* src, int64_t n, uint16_t* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = f32_to_f16(src[i]);
}
}  // namespace glance::kernels
#endif
