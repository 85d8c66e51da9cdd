#pragma once
// The hidden (implicit) attention of the Gated DeltaNet layers (qwen35.md §2.9; the idea is
// Ali, Zimerman & Wolf 2024, "The Hidden Attention of Mamba Models", arXiv:2403.01590).
// Per value head the delta rule (core/lm/delta_rule.h, Glance's layout S [dk][dv]) is
//   S_m = A_m S_{m−1} + β_m k̂_m v_mᵀ,   A_m = e^{g_m} (I − β_m k̂_m k̂_mᵀ)  (symmetric),
//   o_t = S_tᵀ q̂_t = Σ_{j<=t} a_{t,j} v_j  (+ the part of the state from before tracking began),
//   a_{t,j} = β_j k̂_jᵀ A_{j+1} A_{j+2} ⋯ A_t q̂_t.
// Computed backwards from the query, u ← A_m u, so one query costs O((t − j0)·dk) per head,
// or with the folded vectors w_j (state.h HiddenAttentionState) O(rows of this forward · dk +
// tracked rows · dk).
//
// Thread contract: the row and fold functions are pure; the layer functions run inside one
// forward on its state (the forward's thread contract).
#include <cstdint>
#include <span>
#include <vector>

#include "core/lm/attention_observer.h"
#include "core/lm/delta_rule.h"
#include "core/lm/state.h"
#include "core/model/config.h"

namespace glance::kernels {
class ThreadPool;
}

namespace glance::lm {

// u ← A u = e^{g} (u − β k̂ (k̂·u)), u and k̂ of length dk.
void ApplyDeltaTransition(float* u, const float* k, float beta, float g, int dk);

// The hidden attention of query row t of one forward, one value head. `in` holds that head's
// prepared rows as the delta rule gets them (q̂, k̂, β, g; v unused); tracked [T] marks the
// tracked rows (null: every row). w [n_folded][dk]: the folded vectors of the tracked rows of
// earlier forwards (their w_j, at the row before this forward's first).
// out [n_folded + tracked rows of this forward]: the folded rows first, then this forward's
// tracked rows in order; those after row t get 0.
// With `total`, also *total = Σ_j a_{t,j} over every row j <= t (tracked or not): this forward's
// rows directly, the earlier ones through z [dk] (Σ of every earlier row's w_j; null: none).
void HiddenAttentionRow(const DeltaRuleInput& in, int64_t t, const uint8_t* tracked, const float* w,
                        int64_t n_folded, float* out, const float* z = nullptr, float* total = nullptr);

// Advances the folded vectors w [n_folded][dk] of one value head over the first n rows of a
// forward (w_j ← A_m w_j), appending β_m k̂_m for each tracked row m as it goes; with z [dk]
// also z ← A_m z + β_m k̂_m for every row m (the sum of all rows' w_j).
void FoldHiddenRows(const DeltaRuleInput& in, int64_t n, const uint8_t* tracked, std::vector<float>& w,
                    float* z = nullptr);

// Where a DeltaNet layer keeps its rows and reports its hidden attention (one forward).
struct HiddenAttentionContext {
  HiddenAttentionState* state = nullptr;
  int layer = 0;
  AttentionObserver* observer = nullptr;  // null or not wanting it: the rows are kept only
};

// Start of a forward of T rows on a state whose hidden attention is active: folds the pending
// rows of the last forward that the state still holds (n_tokens), then marks this forward's
// rows as pending, tracking `image_rows` (indices into the T rows) or every row.
void BeginHiddenAttentionForward(HiddenAttentionState& s, const TextConfig& cfg, int64_t n_tokens, int64_t T,
                                 std::span<const int64_t> image_rows, kernels::ThreadPool* pool);

// Inside GatedDeltaNetForward, once q̂, k̂ (in qkv [T][Cd], channels q | k | v), β and g
// ([T][nv]) are ready: keeps this forward's k̂, β, g as the layer's pending rows and, when the
// observer wants it, reports the hidden attention of its rows.
void HiddenAttentionLayerForward(const HiddenAttentionContext& ctx, const TextConfig& cfg, const float* qkv,
                                 const float* beta, const float* g, int64_t T, kernels::ThreadPool* pool);

}  // namespace glance::lm
