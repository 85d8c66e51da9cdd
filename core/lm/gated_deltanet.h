#pragma once
// Gated DeltaNet token mixer of the linear-attention layers (qwen35.md §2.7, HF
// Qwen3_5GatedDeltaNet with the torch fallbacks), f32.
//   qkv = in_proj_qkv(x) → causal depthwise conv over time (cached tail) → SiLU →
//   split q | k | v → l2norm(q)/√dk, l2norm(k) → gated delta rule per value head
//   (value head h reads key head h / (nv/nk)) → gated RMSNorm with silu(in_proj_z(x)) →
//   out_proj.
#include <cstdint>
#include <vector>

#include "core/lm/hidden_attention.h"
#include "core/lm/lm_weights.h"
#include "kernels/backend.h"
#include "core/lm/state.h"

namespace glance::kernels {
class ThreadPool;
}

namespace glance::lm {

enum class DeltaRuleMode : uint8_t {
  kAuto,       // chunked when T > 1, recurrent when T == 1 (what HF does)
  kChunked,    // always the chunked algorithm
  kRecurrent,  // always token by token
};

// Optional copies of the intermediates (tests compare them to HF's). All f32, row-major.
struct LinearAttnTrace {
  std::vector<float> in_proj_qkv;     // [T][Cd] before the conv
  std::vector<float> in_proj_z;       // [T][Vd]
  std::vector<float> in_proj_b;       // [T][nv]
  std::vector<float> in_proj_a;       // [T][nv]
  std::vector<float> conv_out;        // [T][Cd] after the conv and SiLU (v is its last Vd channels)
  std::vector<float> core_attn_out;   // [T][nv][dv] delta-rule output
  std::vector<float> gated_norm_out;  // [T][nv][dv]
  std::vector<float> out_proj;        // [T][H]
};

// x [T][H] (after input_layernorm) -> out [T][H]; advances `state` by T tokens.
// `after_rows` (optional, T-1 entries): receives the state after each row but the last, for a
// speculative verify to roll back to. The conv and the delta rule then run row by row exactly
// as T single-row decode steps would (mode is ignored), so each kept state is bit-identical
// to decoding those rows one at a time given the same projections.
// `hidden` (optional): the state's hidden attention is active; the prepared rows are kept
// for it and reported to its observer (core/lm/hidden_attention.h).
void GatedDeltaNetForward(const LinearAttnWeights& w, const TextConfig& cfg, const float* x,
                          int64_t T, LinearLayerState& state, float* out, DeltaRuleMode mode,
                          const kernels::Compute& cx, LinearAttnTrace* trace = nullptr,
                          LinearLayerState* after_rows = nullptr,
                          const HiddenAttentionContext* hidden = nullptr);

}  // namespace glance::lm
