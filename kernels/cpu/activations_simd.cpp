// Highway dynamic dispatch: this file is compiled once per SIMD target (pattern: dot.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/activations_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <hwy/contrib/math/math-inl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/cpu/activations.h"
#include "kernels/cpu/activations_simd.h"

HWY_BEFORE_NAMESPACE();
namespace glance::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// Applies f (vector -> vector) to x[0..n) in place; the tail goes through a zero-padded
// buffer so every element sees the same arithmetic.
template <class F>
HWY_INLINE void MapInPlace(float* HWY_RESTRICT x, int64_t n, const F& f) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    const VF a = f(hn::LoadU(d, x + i)), b = f(hn::LoadU(d, x + i + N));
    hn::StoreU(a, d, x + i);
    hn::StoreU(b, d, x + i + N);
  }
  for (; i + N <= n; i += N) hn::StoreU(f(hn::LoadU(d, x + i)), d, x + i);
  if (i < n) {
    HWY_ALIGN float buf[hn::MaxLanes(d)] = {};
    const size_t rest = static_cast<size_t>(n - i);
    std::memcpy(buf, x + i, rest * sizeof(float));
    hn::Store(f(hn::Load(d, buf)), d, buf);
    std::memcpy(x + i, buf, rest * sizeof(float));
  }
}

// gelu_tanh(x) = 0.5·x·(1 + tanh(u)) = x / (1 + exp(-2u)), u = √(2/π)·(x + 0.044715·x³).
// -2u is clamped to [-88, 88] (Exp's valid range ends at 104): beyond it the factor is 0 or 1
// to f32 precision anyway.
HWY_INLINE VF GeluTanhV(DF d, VF x) {
  const VF c1 = hn::Set(d, -2.0f * 0.7978845608028654f);
  const VF c3 = hn::Set(d, -2.0f * 0.7978845608028654f * 0.044715f);
  const VF x2 = hn::Mul(x, x);
  VF t = hn::Mul(x, hn::MulAdd(c3, x2, c1));  // -2u
  t = hn::Min(hn::Max(t, hn::Set(d, -88.0f)), hn::Set(d, 88.0f));
  return hn::Div(x, hn::Add(hn::Set(d, 1.0f), hn::Exp(d, t)));
}

// 1 / (1 + exp(−x)) with −x clamped to [−88, 88] as above (beyond it the result is 0 or 1 to
// f32 precision; Exp's range ends at 104).
HWY_INLINE VF SigmoidV(DF d, VF x) {
  const VF t = hn::Min(hn::Max(hn::Neg(x), hn::Set(d, -88.0f)), hn::Set(d, 88.0f));
  return hn::Div(hn::Set(d, 1.0f), hn::Add(hn::Set(d, 1.0f), hn::Exp(d, t)));
}
HWY_INLINE VF SiluV(DF d, VF x) {
  const VF t = hn::Min(hn::Max(hn::Neg(x), hn::Set(d, -88.0f)), hn::Set(d, 88.0f));
  return hn::Div(x, hn::Add(hn::Set(d, 1.0f), hn::Exp(d, t)));
}

// y[i] = f(y[i], z[i]) for i in [0, n); the tail through zero-padded buffers, as MapInPlace.
template <class F>
HWY_INLINE void Map2InPlace(float* HWY_RESTRICT y, const float* HWY_RESTRICT z, int64_t n, const F& f) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(f(hn::LoadU(d, y + i), hn::LoadU(d, z + i)), d, y + i);
  if (i < n) {
    HWY_ALIGN float by[hn::MaxLanes(d)] = {};
    HWY_ALIGN float bz[hn::MaxLanes(d)] = {};
    const size_t rest = static_cast<size_t>(n - i);
    std::memcpy(by, y + i, rest * sizeof(float));
    std::memcpy(bz, z + i, rest * sizeof(float));
    hn::Store(f(hn::Load(d, by), hn::Load(d, bz)), d, by);
    std::memcpy(y + i, by, rest * sizeof(float));
  }
}

void SiluImpl(float* x, int64_t n) {
  const DF d;
  MapInPlace(x, n, [d](VF v) { return SiluV(d, v); });
}
void MulSiluImpl(float* y, const float* z, int64_t n) {
  const DF d;
  Map2InPlace(y, z, n, [d](VF a, VF b) { return hn::Mul(a, SiluV(d, b)); });
}
void MulSigmoidImpl(float* y, const float* z, int64_t n) {
  const DF d;
  Map2InPlace(y, z, n, [d](VF a, VF b) { return hn::Mul(a, SigmoidV(d, b)); });
}

// 0.5·x·(1 + erf(x/√2)); erf by Abramowitz–Stegun 7.1.26:
// erf(z) = sign(z)·(1 - t·(a1 + t·(a2 + t·(a3 + t·(a4 + t·a5))))·exp(-z²)), t = 1/(1 + p|z|).
HWY_INLINE VF GeluErfV(DF d, VF x) {
  const VF z = hn::Mul(x, hn::Set(d, 0.7071067811865476f));
  const VF az = hn::Abs(z);
  const VF one = hn::Set(d, 1.0f);
  const VF t = hn::Div(one, hn::MulAdd(hn::Set(d, 0.3275911f), az, one));
  VF r = hn::Set(d, 1.061405429f);
  r = hn::MulAdd(r, t, hn::Set(d, -1.453152027f));
  r = hn::MulAdd(r, t, hn::Set(d, 1.421413741f));
  r = hn::MulAdd(r, t, hn::Set(d, -0.284496736f));
  r = hn::MulAdd(r, t, hn::Set(d, 0.254829592f));
  r = hn::Mul(r, t);
  const VF e = hn::Exp(d, hn::Max(hn::Neg(hn::Mul(z, z)), hn::Set(d, -88.0f)));
  const VF erf_abs = hn::NegMulAdd(r, e, one);  // 1 - r·e
  const VF erf = hn::CopySign(erf_abs, z);
  return hn::Mul(hn::Mul(hn::Set(d, 0.5f), x), hn::Add(one, erf));
}

void GeluTanhImpl(float* x, int64_t n) {
  const DF d;
  MapInPlace(x, n, [d](VF v) { return GeluTanhV(d, v); });
}

void GeluErfImpl(float* x, int64_t n) {
  const DF d;
  MapInPlace(x, n, [d](VF v) { return GeluErfV(d, v); });
}

void SoftmaxScaledImpl(float* x, int64_t n, float scale) {
  if (n <= 0) return;
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  // Max (the tail masked with -inf through a padded buffer).
  VF vm = hn::Set(d, -std::numeric_limits<float>::infinity());
  int64_t i = 0;
  for (; i + N <= n; i += N) vm = hn::Max(vm, hn::LoadU(d, x + i));
  float m = hn::GetLane(hn::MaxOfLanes(d, vm));
  for (; i < n; ++i) m = std::max(m, x[i]);
  // e = exp(scale·(x - m)), sum.
  const VF vs = hn::Set(d, scale), vmax = hn::Set(d, m);
  VF sum = hn::Zero(d);
  i = 0;
  for (; i + N <= n; i += N) {
    const VF e = hn::Exp(d, hn::Mul(hn::Sub(hn::LoadU(d, x + i), vmax), vs));
    hn::StoreU(e, d, x + i);
    sum = hn::Add(sum, e);
  }
  float s = hn::GetLane(hn::SumOfLanes(d, sum));
  if (i < n) {
    HWY_ALIGN float buf[hn::MaxLanes(d)];
    const size_t rest = static_cast<size_t>(n - i);
    std::fill_n(buf, hn::Lanes(d), m);
    std::memcpy(buf, x + i, rest * sizeof(float));
    hn::Store(hn::Exp(d, hn::Mul(hn::Sub(hn::Load(d, buf), vmax), vs)), d, buf);
    for (size_t k = 0; k < rest; ++k) s += buf[k];
    std::memcpy(x + i, buf, rest * sizeof(float));
  }
  const VF inv = hn::Set(d, 1.0f / s);
  i = 0;
  for (; i + N <= n; i += N) hn::StoreU(hn::Mul(hn::LoadU(d, x + i), inv), d, x + i);
  const float inv_s = 1.0f / s;
  for (; i < n; ++i) x[i] *= inv_s;
}

float SumV(const float* x, int64_t n, float shift, bool squares) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  const VF vs = hn::Set(d, shift);
  VF a0 = hn::Zero(d), a1 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    VF u = hn::Sub(hn::LoadU(d, x + i), vs), v = hn::Sub(hn::LoadU(d, x + i + N), vs);
    if (squares) {
      a0 = hn::MulAdd(u, u, a0);
      a1 = hn::MulAdd(v, v, a1);
    } else {
      a0 = hn::Add(a0, u);
      a1 = hn::Add(a1, v);
    }
  }
  for (; i + N <= n; i += N) {
    const VF u = hn::Sub(hn::LoadU(d, x + i), vs);
    a0 = squares ? hn::MulAdd(u, u, a0) : hn::Add(a0, u);
  }
  float s = hn::GetLane(hn::SumOfLanes(d, hn::Add(a0, a1)));
  for (; i < n; ++i) s += squares ? (x[i] - shift) * (x[i] - shift) : x[i] - shift;
  return s;
}

void LayerNormRowsImpl(const float* x, int64_t rows, int64_t dim, const float* w, const float* b,
                       float eps, float* y) {
  const DF d;
  const int64_t N = static_cast<int64_t>(hn::Lanes(d));
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * dim;
    float* yr = y + r * dim;
    const float mean = SumV(xr, dim, 0.0f, false) / static_cast<float>(dim);
    const float var = SumV(xr, dim, mean, true) / static_cast<float>(dim);
    const float inv = 1.0f / std::sqrt(var + eps);
    const VF vm = hn::Set(d, mean), vi = hn::Set(d, inv);
    int64_t i = 0;
    for (; i + N <= dim; i += N) {
      const VF v = hn::Mul(hn::Mul(hn::Sub(hn::LoadU(d, xr + i), vm), vi), hn::LoadU(d, w + i));
      hn::StoreU(b ? hn::Add(v, hn::LoadU(d, b + i)) : v, d, yr + i);
    }
    for (; i < dim; ++i) yr[i] = (xr[i] - mean) * inv * w[i] + (b ? b[i] : 0.0f);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace glance::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace glance::kernels {
HWY_EXPORT(GeluTanhImpl);
HWY_EXPORT(GeluErfImpl);
HWY_EXPORT(SoftmaxScaledImpl);
HWY_EXPORT(LayerNormRowsImpl);
HWY_EXPORT(SiluImpl);
HWY_EXPORT(MulSiluImpl);
HWY_EXPORT(MulSigmoidImpl);

void SiluInPlace(float* x, int64_t n) { HWY_DYNAMIC_DISPATCH(SiluImpl)(x, n); }
void MulSiluInPlace(float* y, const float* z, int64_t n) { HWY_DYNAMIC_DISPATCH(MulSiluImpl)(y, z, n); }
void MulSigmoidInPlace(float* y, const float* z, int64_t n) { HWY_DYNAMIC_DISPATCH(MulSigmoidImpl)(y, z, n); }
void SiluInPlaceReference(float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = Silu(x[i]);
}
void MulSiluInPlaceReference(float* y, const float* z, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] *= Silu(z[i]);
}
void MulSigmoidInPlaceReference(float* y, const float* z, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] *= Sigmoid(z[i]);
}

void GeluTanhInPlace(float* x, int64_t n) { HWY_DYNAMIC_DISPATCH(GeluTanhImpl)(x, n); }
void GeluErfInPlace(float* x, int64_t n) { HWY_DYNAMIC_DISPATCH(GeluErfImpl)(x, n); }
void SoftmaxScaledInPlace(float* x, int64_t n, float scale) {
  HWY_DYNAMIC_DISPATCH(SoftmaxScaledImpl)(x, n, scale);
}
void LayerNormRows(const float* x, int64_t rows, int64_t dim, const float* w, const float* b,
                   float eps, float* y) {
  HWY_DYNAMIC_DISPATCH(LayerNormRowsImpl)(x, rows, dim, w, b, eps, y);
}

void GeluTanhInPlaceReference(float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = GeluTanh(x[i]);
}
void GeluErfInPlaceReference(float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = GeluErf(x[i]);
}
void SoftmaxScaledInPlaceReference(float* x, int64_t n, float scale) {
  for (int64_t i = 0; i < n; ++i) x[i] *= scale;
  SoftmaxInPlace(x, n);
}
void LayerNormRowsReference(const float* x, int64_t rows, int64_t dim, const float* w,
                            const float* b, float eps, float* y) {
  for (int64_t r = 0; r < rows; ++r) LayerNormRow(x + r * dim, dim, w, b, eps, y + r * dim);
}
}  // namespace glance::kernels
#endif
