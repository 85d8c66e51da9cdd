#pragma once
// The gated delta rule for one value head (qwen35.md §2.7 steps 6-7), f32 throughout.
// Inputs are already prepared: q̂ = l2norm(q)/√dk, k̂ = l2norm(k), β = sigmoid(b),
// g = −exp(A_log)·softplus(a + dt_bias) (log decay, <= 0).
// Row t of q/k is at q + t·qk_stride, of v at v + t·v_stride; out row t at out + t·out_stride.
// S [dk][dv] is the incoming state, updated in place to the state after the last token.
//
// Both forms compute the same function up to f32 rounding (HF: ~1e-6 relative):
//   Recurrent — HF torch_recurrent_gated_delta_rule (decode, one token at a time).
//   Chunked   — HF torch_chunk_gated_delta_rule (prefill; chunks of 64 tokens).
#include <cstdint>

namespace glance::lm {

struct DeltaRuleInput {
  const float* q = nullptr;  // [T][dk] at qk_stride
  const float* k = nullptr;  // [T][dk] at qk_stride
  int64_t qk_stride = 0;
  const float* v = nullptr;  // [T][dv] at v_stride
  int64_t v_stride = 0;
  const float* g = nullptr;     // [T] at gb_stride
  const float* beta = nullptr;  // [T] at gb_stride
  int64_t gb_stride = 1;
  int64_t n_tokens = 0;
  int dk = 0;
  int dv = 0;
};

inline constexpr int kDeltaRuleChunk = 64;  // HF chunk_size

// Per token: S ← e^{g}·S; δ = β(v − Sᵀk̂); S ← S + k̂δᵀ; o = Sᵀq̂.
void DeltaRuleRecurrent(const DeltaRuleInput& in, float* state, float* out, int64_t out_stride);

// HF's chunked algorithm (intra-chunk WY form solved by forward substitution, inter-chunk
// state passing); a final partial chunk behaves exactly like HF's zero padding.
void DeltaRuleChunked(const DeltaRuleInput& in, float* state, float* out, int64_t out_stride,
                      int chunk = kDeltaRuleChunk);

}  // namespace glance::lm
