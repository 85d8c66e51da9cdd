#pragma once
// Attention rollout (issue 36 item 2; Abnar & Zuidema 2020, "Quantifying Attention Flow in
// Transformers", arXiv:2005.00928): how much each input token reaches a generated token through
// every layer, not one layer's weights. Per layer l a row-stochastic T × T matrix A_l, then
//   Ã_l = ½ (A_l + I) with rows normalised (the ½ I is the residual connection),
//   R = Ã_L ⋯ Ã_2 Ã_1, and token t's map is row t of R over the image's rows.
// Full-attention layers give A_l as the mean over heads of their softmax weights. A Gated
// DeltaNet layer has no softmax: its implicit matrix a_{t,j} (docs/qwen35.md §2.9) is signed and
// unnormalised, so A_l is the mean over value heads of |a_{t,j}|, each row divided by its sum (a
// row that decayed to all zeros leaves Ã_l's row the identity's: the residual alone).
// It needs every position's row, not only the generated token's: RolloutMaps re-runs the prompt
// and the answer in one forward with every row reported (O(L·T²) memory), so it refuses
// sequences longer than a limit.
//
// Thread contract: RolloutMaps runs a forward on the engine (the caller's engine thread); the
// rest are pure.
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "core/engine/events.h"
#include "core/engine/prompt_stream.h"
#include "core/lm/attention_observer.h"

namespace glance {

class Engine;

// Keeps each layer's A_l (as above) of one forward whose rows are the whole sequence (a fresh
// state: the first forward, every row tracked for the DeltaNet layers).
class RolloutRecorder final : public lm::AttentionObserver {
 public:
  Rows rows() const override { return Rows::kAll; }
  void OnAttention(const lm::AttentionProbs& p) override;
  bool wants_hidden_attention() const override { return true; }
  void OnHiddenAttention(const lm::HiddenAttentionWeights& w) override;
  // Decoder layer index -> A_l [T][T] (row t over keys 0..T-1), in layer order.
  const std::map<int, std::vector<double>>& layers() const { return layers_; }
  int64_t sequence_rows() const { return T_; }

 private:
  std::map<int, std::vector<double>> layers_;
  int64_t T_ = 0;
};

// Rows `queries` of R = Ã_L ⋯ Ã_1 for the layers' A_l (each [T][T], row-stochastic or all-zero
// rows, taken in ascending layer order): [queries.size()][T]. Computed as row vectors
// e_tᵀ Ã_L ⋯ Ã_1, O(L · |queries| · T²).
std::vector<double> RolloutRows(const std::map<int, std::vector<double>>& layers, int64_t T,
                                std::span<const int64_t> queries);

// The longest sequence (prompt + answer) RolloutMaps takes by default.
inline constexpr int64_t kMaxRolloutRows = 1024;

// Re-runs `prompt` (as the turn's generation saw it) followed by the answer's tokens in one
// forward with every row reported, and returns one map per answer token (its step, id and
// text from `answer`) over image run `image_run` of the prompt: `mean` is the rollout row over
// the image's tokens (no per-layer weights; layers empty). The map of answer token s is the
// row that chose it (the row before it: the prompt's last row for s = 0). Throws glance::Error
// naming the length when prompt + answer exceed max_rows, or when there is no such image.
std::vector<AttentionMap> RolloutMaps(const Engine& engine, const PromptStream& prompt,
                                      std::span<const float* const> features, const std::vector<AttentionMap>& answer,
                                      size_t image_run, int image_index, int64_t max_rows = kMaxRolloutRows);

}  // namespace glance
