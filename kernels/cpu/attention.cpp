// Highway dynamic dispatch: this file is compiled once per SIMD target (pattern: dot.cpp).
// Each kernel is written once over the cache's storage format (F32Format / F16Format from
// weight_loaders-inl.h: Load widens a vector of stored elements to f32, exactly); the f32
// instantiation is the loop this file always had, so the f32 path is unchanged bit for bit.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/attention.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

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

// Blocks of 4 vectors of `out` stay in registers while every value row streams past once
// per block (a head of 256 floats is 8 blocks on AVX2).
template <class Format>
void WeightedSumOf(const float* p, const typename Format::Stored* values, int64_t value_stride,
                   int64_t n, int64_t dim, float* out) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + 4 * N <= dim; i += 4 * N) {
    auto o0 = hn::Zero(d), o1 = hn::Zero(d), o2 = hn::Zero(d), o3 = hn::Zero(d);
    for (int64_t j = 0; j < n; ++j) {
      const auto pj = hn::Set(d, p[j]);
      const auto* v = values + j * value_stride + i;
      o0 = hn::MulAdd(pj, Format::Load(d, v), o0);
      o1 = hn::MulAdd(pj, Format::Load(d, v + N), o1);
      o2 = hn::MulAdd(pj, Format::Load(d, v + 2 * N), o2);
      o3 = hn::MulAdd(pj, Format::Load(d, v + 3 * N), o3);
    }
    hn::StoreU(o0, d, out + i);
    hn::StoreU(o1, d, out + i + N);
    hn::StoreU(o2, d, out + i + 2 * N);
    hn::StoreU(o3, d, out + i + 3 * N);
  }
  for (; i + N <= dim; i += N) {
    auto o = hn::Zero(d);
    for (int64_t j = 0; j < n; ++j)
      o = hn::MulAdd(hn::Set(d, p[j]), Format::Load(d, values + j * value_stride + i), o);
    hn::StoreU(o, d, out + i);
  }
  for (; i < dim; ++i) {
    float o = 0.0f;
    for (int64_t j = 0; j < n; ++j) o += p[j] * Format::ToF32(values[j * value_stride + i]);
    out[i] = o;
  }
}

void AttentionScoresF32(const float* q, const float* keys, int64_t key_stride, int64_t n,
                        int64_t dim, float scale, float* scores) {
  ScoresOf<F32Format>(q, keys, key_stride, n, dim, scale, scores);
}
void AttentionScoresF16Impl(const float* q, const uint16_t* keys, int64_t key_stride, int64_t n,
                         int64_t dim, float scale, float* scores) {
  ScoresOf<F16Format>(q, keys, key_stride, n, dim, scale, scores);
}
void AttentionWeightedSumF32(const float* p, const float* values, int64_t value_stride, int64_t n,
                             int64_t dim, float* out) {
  WeightedSumOf<F32Format>(p, values, value_stride, n, dim, out);
}
void AttentionWeightedSumF16Impl(const float* p, const uint16_t* values, int64_t value_stride,
                              int64_t n, int64_t dim, float* out) {
  WeightedSumOf<F16Format>(p, values, value_stride, n, dim, out);
}

}  // namespace HWY_NAMESPACE
}  // namespace glance::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace glance::kernels {
HWY_EXPORT(AttentionScoresF32);
HWY_EXPORT(AttentionScoresF16Impl);
HWY_EXPORT(AttentionWeightedSumF32);
HWY_EXPORT(AttentionWeightedSumF16Impl);

void AttentionScores(const float* q, const float* keys, int64_t key_stride, int64_t n, int64_t d,
                     float scale, float* scores) {
  HWY_DYNAMIC_DISPATCH(AttentionScoresF32)(q, keys, key_stride, n, d, scale, scores);
}
void AttentionScoresF16(const float* q, const uint16_t* keys_f16, int64_t key_stride, int64_t n,
                        int64_t d, float scale, float* scores) {
  HWY_DYNAMIC_DISPATCH(AttentionScoresF16Impl)(q, keys_f16, key_stride, n, d, scale, scores);
}

void AttentionWeightedSum(const float* p, const float* values, int64_t value_stride, int64_t n,
                          int64_t d, float* out) {
  HWY_DYNAMIC_DISPATCH(AttentionWeightedSumF32)(p, values, value_stride, n, d, out);
}
void AttentionWeightedSumF16(const float* p, const uint16_t* values_f16, int64_t value_stride,
                             int64_t n, int64_t d, float* out) {
  HWY_DYNAMIC_DISPATCH(AttentionWeightedSumF16Impl)(p, values_f16, value_stride, n, d, out);
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
}  // namespace

void AttentionScoresReference(const float* q, const float* keys, int64_t key_stride, int64_t n,
                              int64_t d, float scale, float* scores) {
  ScoresReference(q, keys, key_stride, n, d, scale, scores);
}
void AttentionScoresF16Reference(const float* q, const uint16_t* keys_f16, int64_t key_stride,
                                 int64_t n, int64_t d, float scale, float* scores) {
  ScoresReference(q, keys_f16, key_stride, n, d, scale, scores);
}

void AttentionWeightedSumReference(const float* p, const float* values, int64_t value_stride,
                                   int64_t n, int64_t d, float* out) {
  WeightedSumReference(p, values, value_stride, n, d, out);
}
void AttentionWeightedSumF16Reference(const float* p, const uint16_t* values_f16,
                                      int64_t value_stride, int64_t n, int64_t d, float* out) {
  WeightedSumReference(p, values_f16, value_stride, n, d, out);
}

void RoundToF16(const float* src, int64_t n, uint16_t* dst) {
  for (int64_t i = 0; i < n; ++i) dst[i] = f32_to_f16(src[i]);
}
}  // namespace glance::kernels
#endif
