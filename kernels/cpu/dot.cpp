// f32 dot product (dot.h). Highway dynamic dispatch: this file is compiled once per SIMD
// target; the loop itself is DotWidened (weight_loaders-inl.h), the one the f32 GEMV uses.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/dot.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/cpu/dot.h"
#include "kernels/cpu/weight_loaders-inl.h"

HWY_BEFORE_NAMESPACE();
namespace glance::kernels {
namespace HWY_NAMESPACE {

float DotF32Impl(const float* a, const float* b, int64_t n) { return DotWidened<F32Format>(a, b, n); }

}  // namespace HWY_NAMESPACE
}  // namespace glance::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace glance::kernels {
HWY_EXPORT(DotF32Impl);

float DotF32(const float* a, const float* b, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(DotF32Impl)(a, b, n);
}

float DotF32Reference(const float* a, const float* b, int64_t n) {
  float acc = 0.0f;
  for (int64_t i = 0; i < n; ++i) acc += a[i] * b[i];
  return acc;
}
}  // namespace glance::kernels
#endif
