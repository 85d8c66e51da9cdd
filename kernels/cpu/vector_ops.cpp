// Highway dynamic dispatch: this file is compiled once per SIMD target (pattern: dot.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/vector_ops.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/cpu/vector_ops.h"

HWY_BEFORE_NAMESPACE();
namespace glance::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void AxpyImpl(float a, const float* x, float* y, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const auto va = hn::Set(d, a);
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    hn::StoreU(hn::MulAdd(va, hn::LoadU(d, x + i), hn::LoadU(d, y + i)), d, y + i);
    hn::StoreU(hn::MulAdd(va, hn::LoadU(d, x + i + N), hn::LoadU(d, y + i + N)), d, y + i + N);
  }
  for (; i + N <= n; i += N) hn::StoreU(hn::MulAdd(va, hn::LoadU(d, x + i), hn::LoadU(d, y + i)), d, y + i);
  for (; i < n; ++i) y[i] += a * x[i];
}

void ScaleImpl(float a, float* x, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const auto va = hn::Set(d, a);
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::Mul(va, hn::LoadU(d, x + i)), d, x + i);
  for (; i < n; ++i) x[i] *= a;
}

}  // namespace HWY_NAMESPACE
}  // namespace glance::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace glance::kernels {
HWY_EXPORT(AxpyImpl);
HWY_EXPORT(ScaleImpl);

void Axpy(float a, const float* x, float* y, int64_t n) { HWY_DYNAMIC_DISPATCH(AxpyImpl)(a, x, y, n); }
void Scale(float a, float* x, int64_t n) { HWY_DYNAMIC_DISPATCH(ScaleImpl)(a, x, n); }

void AxpyReference(float a, const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
}
void ScaleReference(float a, float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] *= a;
}
}  // namespace glance::kernels
#endif
