// Highway dynamic dispatch: this file is compiled once per SIMD target (pattern: dot.cpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/delta_rule_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "kernels/cpu/delta_rule_simd.h"

HWY_BEFORE_NAMESPACE();
namespace glance::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

void DeltaRuleStepImpl(float* S, int dk, int dv, const float* q, const float* k, const float* v,
                       float decay, float beta, float* out, float* scratch) {
  const hn::ScalableTag<float> d;
  const int N = static_cast<int>(hn::Lanes(d));
  float kq = 0.0f;
  for (int a = 0; a < dk; ++a) kq += k[a] * q[a];
  float* delta = scratch;
  // Pass 1 (read S): Sᵀk̂ and Sᵀq̂ for a block of 2 vectors of columns at a time, then δ and o.
  int b = 0;
  for (; b + 2 * N <= dv; b += 2 * N) {
    auto sk0 = hn::Zero(d), sk1 = hn::Zero(d), sq0 = hn::Zero(d), sq1 = hn::Zero(d);
    for (int a = 0; a < dk; ++a) {
      const float* row = S + static_cast<int64_t>(a) * dv + b;
      const auto r0 = hn::LoadU(d, row), r1 = hn::LoadU(d, row + N);
      const auto ka = hn::Set(d, k[a]), qa = hn::Set(d, q[a]);
      sk0 = hn::MulAdd(r0, ka, sk0);
      sk1 = hn::MulAdd(r1, ka, sk1);
      sq0 = hn::MulAdd(r0, qa, sq0);
      sq1 = hn::MulAdd(r1, qa, sq1);
    }
    const auto vdec = hn::Set(d, decay), vbeta = hn::Set(d, beta), vkq = hn::Set(d, kq);
    const auto d0 = hn::Mul(vbeta, hn::NegMulAdd(vdec, sk0, hn::LoadU(d, v + b)));
    const auto d1 = hn::Mul(vbeta, hn::NegMulAdd(vdec, sk1, hn::LoadU(d, v + b + N)));
    hn::StoreU(d0, d, delta + b);
    hn::StoreU(d1, d, delta + b + N);
    hn::StoreU(hn::MulAdd(vdec, sq0, hn::Mul(vkq, d0)), d, out + b);
    hn::StoreU(hn::MulAdd(vdec, sq1, hn::Mul(vkq, d1)), d, out + b + N);
  }
  for (; b < dv; ++b) {
    float sk = 0.0f, sq = 0.0f;
    for (int a = 0; a < dk; ++a) {
      sk += S[static_cast<int64_t>(a) * dv + b] * k[a];
      sq += S[static_cast<int64_t>(a) * dv + b] * q[a];
    }
    delta[b] = beta * (v[b] - decay * sk);
    out[b] = decay * sq + kq * delta[b];
  }
  // Pass 2 (read and write S): S ← e^g·S + k̂δᵀ.
  const auto vdec = hn::Set(d, decay);
  for (int a = 0; a < dk; ++a) {
    float* row = S + static_cast<int64_t>(a) * dv;
    const auto ka = hn::Set(d, k[a]);
    int c = 0;
    for (; c + N <= dv; c += N)
      hn::StoreU(hn::MulAdd(ka, hn::LoadU(d, delta + c), hn::Mul(vdec, hn::LoadU(d, row + c))), d, row + c);
    for (; c < dv; ++c) row[c] = decay * row[c] + k[a] * delta[c];
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace glance::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace glance::kernels {
HWY_EXPORT(DeltaRuleStepImpl);

void DeltaRuleStep(float* S, int dk, int dv, const float* q, const float* k, const float* v,
                   float decay, float beta, float* out, float* scratch) {
  HWY_DYNAMIC_DISPATCH(DeltaRuleStepImpl)(S, dk, dv, q, k, v, decay, beta, out, scratch);
}

void DeltaRuleStepReference(float* S, int dk, int dv, const float* q, const float* k,
                            const float* v, float decay, float beta, float* out, float* scratch) {
  float* mem = scratch;
  for (int b = 0; b < dv; ++b) mem[b] = 0.0f;
  for (int a = 0; a < dk; ++a) {
    float* row = S + static_cast<int64_t>(a) * dv;
    for (int b = 0; b < dv; ++b) {
      row[b] *= decay;
      mem[b] += row[b] * k[a];
    }
  }
  for (int b = 0; b < dv; ++b) mem[b] = (v[b] - mem[b]) * beta;
  for (int b = 0; b < dv; ++b) out[b] = 0.0f;
  for (int a = 0; a < dk; ++a) {
    float* row = S + static_cast<int64_t>(a) * dv;
    for (int b = 0; b < dv; ++b) {
      row[b] += k[a] * mem[b];
      out[b] += row[b] * q[a];
    }
  }
}
}  // namespace glance::kernels
#endif
