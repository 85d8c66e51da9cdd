// Highway dynamic dispatch: this file is compiled once per SIMD target (pattern: dot.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/attention.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/cpu/attention.h"

HWY_BEFORE_NAMESPACE();
namespace glance::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

float Dot(const float* a, const float* b, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  auto s0 = hn::Zero(d), s1 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    s0 = hn::MulAdd(hn::LoadU(d, a + i), hn::LoadU(d, b + i), s0);
    s1 = hn::MulAdd(hn::LoadU(d, a + i + N), hn::LoadU(d, b + i + N), s1);
  }
  for (; i + N <= n; i += N) s0 = hn::MulAdd(hn::LoadU(d, a + i), hn::LoadU(d, b + i), s0);
  float acc = hn::GetLane(hn::SumOfLanes(d, hn::Add(s0, s1)));
  for (; i < n; ++i) acc += a[i] * b[i];
  return acc;
}

void AttentionScoresImpl(const float* q, const float* keys, int64_t key_stride, int64_t n,
                         int64_t dim, float scale, float* scores) {
  for (int64_t j = 0; j < n; ++j) scores[j] = Dot(q, keys + j * key_stride, dim) * scale;
}

// Blocks of 4 vectors of `out` stay in registers while every value row streams past once
// per block (a head of 256 floats is 8 blocks on AVX2).
void AttentionWeightedSumImpl(const float* p, const float* values, int64_t value_stride,
                              int64_t n, int64_t dim, float* out) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + 4 * N <= dim; i += 4 * N) {
    auto o0 = hn::Zero(d), o1 = hn::Zero(d), o2 = hn::Zero(d), o3 = hn::Zero(d);
    for (int64_t j = 0; j < n; ++j) {
      const auto pj = hn::Set(d, p[j]);
      const float* v = values + j * value_stride + i;
      o0 = hn::MulAdd(pj, hn::LoadU(d, v), o0);
      o1 = hn::MulAdd(pj, hn::LoadU(d, v + N), o1);
      o2 = hn::MulAdd(pj, hn::LoadU(d, v + 2 * N), o2);
      o3 = hn::MulAdd(pj, hn::LoadU(d, v + 3 * N), o3);
    }
    hn::StoreU(o0, d, out + i);
    hn::StoreU(o1, d, out + i + N);
    hn::StoreU(o2, d, out + i + 2 * N);
    hn::StoreU(o3, d, out + i + 3 * N);
  }
  for (; i + N <= dim; i += N) {
    auto o = hn::Zero(d);
    for (int64_t j = 0; j < n; ++j) o = hn::MulAdd(hn::Set(d, p[j]), hn::LoadU(d, values + j * value_stride + i), o);
    hn::StoreU(o, d, out + i);
  }
  for (; i < dim; ++i) {
    float o = 0.0f;
    for (int64_t j = 0; j < n; ++j) o += p[j] * values[j * value_stride + i];
    out[i] = o;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace glance::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace glance::kernels {
HWY_EXPORT(AttentionScoresImpl);
HWY_EXPORT(AttentionWeightedSumImpl);

void AttentionScores(const float* q, const float* keys, int64_t key_stride, int64_t n, int64_t d,
                     float scale, float* scores) {
  HWY_DYNAMIC_DISPATCH(AttentionScoresImpl)(q, keys, key_stride, n, d, scale, scores);
}

void AttentionWeightedSum(const float* p, const float* values, int64_t value_stride, int64_t n,
                          int64_t d, float* out) {
  HWY_DYNAMIC_DISPATCH(AttentionWeightedSumImpl)(p, values, value_stride, n, d, out);
}

void AttentionScoresReference(const float* q, const float* keys, int64_t key_stride, int64_t n,
                              int64_t d, float scale, float* scores) {
  for (int64_t j = 0; j < n; ++j) {
    float s = 0.0f;
    for (int64_t i = 0; i < d; ++i) s += q[i] * keys[j * key_stride + i];
    scores[j] = s * scale;
  }
}

void AttentionWeightedSumReference(const float* p, const float* values, int64_t value_stride,
                                   int64_t n, int64_t d, float* out) {
  for (int64_t i = 0; i < d; ++i) out[i] = 0.0f;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < d; ++i) out[i] += p[j] * values[j * value_stride + i];
}
}  // namespace glance::kernels
#endif
