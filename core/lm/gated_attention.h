#pragma once
// Gated full attention of every 4th layer (qwen35.md §2.5, HF Qwen3_5Attention, eager), f32
// activations; the cache holds f32 or half rows (state.h KvType).
//   q_proj → per head [query | gate]; q_norm/k_norm (1 + w) → partial interleaved M-RoPE →
//   append K, V to the cache → causal softmax(QKᵀ/√D) V with GQA (query head h reads kv head
//   h / (nq/nkv)) → ⊙ sigmoid(gate) → o_proj.
// Cost per query row is O(cache length): decode never recomputes the past.
#include <cstdint>
#include <vector>

#include "core/lm/attention_observer.h"
#include "core/lm/lm_weights.h"
#include "kernels/backend.h"
#include "core/lm/state.h"

namespace glance::kernels {
class ThreadPool;
}

namespace glance::lm {

// Optional copies of the intermediates (tests compare them to HF's). All f32, row-major.
struct AttnTrace {
  std::vector<float> q_proj;     // [T][nq·2D]
  std::vector<float> k_proj;     // [T][nkv·D] before k_norm and RoPE
  std::vector<float> v_proj;     // [T][nkv·D]
  std::vector<float> o_proj_in;  // [T][nq·D] attention output ⊙ sigmoid(gate)
  std::vector<float> out;        // [T][H]
};

// x [T][H] (after input_layernorm), rope cos/sin [T][rotary_dim] -> out [T][H].
// `n_past` rows of `cache` are valid on entry; T more are appended (capacity must already
// hold n_past + T). observer may be null.
void GatedAttentionForward(const FullAttnWeights& w, const TextConfig& cfg, int layer_index,
                           const float* x, int64_t T, const float* cos, const float* sin,
                           KvCache& cache, int64_t n_past, float* out,
                           const kernels::Compute& cx, AttentionObserver* observer,
                           AttnTrace* trace = nullptr);

}  // namespace glance::lm
