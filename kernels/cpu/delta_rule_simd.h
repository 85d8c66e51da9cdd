#pragma once
// One decode step of the gated delta rule for one value head (qwen35.md §2.7 step 6,
// HF torch_recurrent_gated_delta_rule), SIMD with Highway runtime dispatch.
//   S ← e^g·S;  δ = β(v − Sᵀk̂);  S ← S + k̂δᵀ;  o = Sᵀq̂        (S is [dk][dv], row-major)
// The SIMD form reads S once and writes it once, using the algebraically equal
//   Sᵀk̂ = e^g·(S₀ᵀk̂),  o = e^g·(S₀ᵀq̂) + (k̂·q̂)·δ
// so it differs from the reference only by f32 rounding.
#include <cstdint>

namespace glance::kernels {

// decay = e^g. scratch holds 2·dv floats. out[dv] is overwritten.
void DeltaRuleStep(float* S, int dk, int dv, const float* q, const float* k, const float* v,
                   float decay, float beta, float* out, float* scratch);
// The literal per-token loops (the oracle; same arguments).
void DeltaRuleStepReference(float* S, int dk, int dv, const float* q, const float* k,
                            const float* v, float decay, float beta, float* out, float* scratch);

}  // namespace glance::kernels
