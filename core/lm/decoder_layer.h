#pragma once
// One Qwen3.5 decoder layer (qwen35.md §2.2): x += mixer(input_norm(x)); x += mlp(post_norm(x)),
// the mixer a Gated DeltaNet or a gated full attention. Shared by the main model's layers and
// the MTP module's one full-attention layer (core/lm/mtp.h).
#include <cstdint>

#include "core/lm/attention_observer.h"
#include "core/lm/gated_attention.h"
#include "core/lm/gated_deltanet.h"
#include "core/lm/lm_weights.h"
#include "core/lm/state.h"
#include "kernels/backend.h"

namespace glance::lm {

// Where one layer's mixer keeps its past, and what it reports.
struct LayerContext {
  int layer_index = 0;
  LinearLayerState* linear = nullptr;  // linear-attention layers
  LinearLayerState* linear_after_rows = nullptr;  // optional, see GatedDeltaNetForward
  LinearAttnTrace* linear_trace = nullptr;
  const HiddenAttentionContext* hidden = nullptr;  // linear layers, when the state tracks it
  DeltaRuleMode delta_rule = DeltaRuleMode::kAuto;
  KvCache* kv = nullptr;  // full-attention layers: n_past rows valid; T more are appended
  int64_t n_past = 0;
  const float* cos = nullptr;  // [T][rotary_dim]
  const float* sin = nullptr;
  AttentionObserver* observer = nullptr;
  AttnTrace* attn_trace = nullptr;
};

// x [T][H] updated in place; h, y are scratch of the same size.
void DecoderLayerForward(const LayerWeights& L, const TextConfig& cfg, float* x, int64_t T,
                         const LayerContext& ctx, float* h, float* y, const kernels::Compute& cx);

}  // namespace glance::lm
