#pragma once
// Hook for reading the softmax weights of the full-attention layers and the hidden attention
// of the Gated DeltaNet layers (design.md "Attention capture"). The forward calls it only when
// an observer is passed: no observer, no cost.
#include <cstdint>

namespace glance::lm {

// Softmax weights of one full-attention layer for some query rows of one forward.
struct AttentionProbs {
  int layer = 0;               // decoder layer index (e.g. 3, 7, … for Qwen3.5)
  int n_heads = 0;             // query heads
  int64_t query_begin = 0;     // first reported query row, as an index into this forward's T rows
  int64_t n_queries = 0;       // reported rows
  int64_t first_position = 0;  // cache index of this forward's row 0 (state.n_tokens before it)
  int64_t n_keys = 0;          // keys = cache length after this forward
  // [n_heads][n_queries][n_keys]; row r (query query_begin + r, cache index
  // first_position + query_begin + r) is causal: entries past that index are 0.
  const float* probs = nullptr;

  const float* row(int head, int64_t r) const { return probs + (head * n_queries + r) * n_keys; }
};

// The hidden attention of one Gated DeltaNet layer for some query rows of one forward
// (qwen35.md §2.9, core/lm/hidden_attention.h): weight a_{t,j} of tracked row j's value v_j
// in the delta-rule output o_t = Σ_j a_{t,j} v_j (before the gated norm), per value head.
// Signed and unnormalised: not a softmax.
struct HiddenAttentionWeights {
  int layer = 0;               // decoder layer index (0, 1, 2, 4, … for Qwen3.5)
  int n_heads = 0;             // value heads
  int64_t query_begin = 0;     // first reported query row, as an index into this forward's T rows
  int64_t n_queries = 0;
  int64_t first_position = 0;  // cache index of this forward's row 0
  int64_t n_keys = 0;          // tracked rows (image rows since capture began)
  const int64_t* positions = nullptr;  // [n_keys] their cache positions, ascending
  // [n_heads][n_queries][n_keys]; tracked rows after the query's own position are 0.
  const float* weights = nullptr;
  // [n_heads][n_queries]: Σ_j a_{t,j} over every earlier row j, tracked or not (the delta rule
  // run with v ≡ 1); null when tracking began after the sequence's first row.
  const float* totals = nullptr;

  const float* row(int head, int64_t r) const { return weights + (head * n_queries + r) * n_keys; }
  const float* total(int head, int64_t r) const { return totals ? totals + head * n_queries + r : nullptr; }
};

class AttentionObserver {
 public:
  enum class Rows { kLastOnly, kAll };
  virtual ~AttentionObserver() = default;
  // Which query rows to report. kAll stores n_heads·T·n_keys floats per layer.
  virtual Rows rows() const { return Rows::kLastOnly; }
  // Called on the forward's calling thread, once per full-attention layer, in layer order.
  // `probs` is valid only during the call.
  virtual void OnAttention(const AttentionProbs& probs) = 0;
  // Whether to compute the DeltaNet layers' hidden attention (needs the state's hidden
  // attention enabled: LanguageModel::EnableHiddenAttention). Same rows() as above.
  virtual bool wants_hidden_attention() const { return false; }
  // Called on the forward's calling thread, once per DeltaNet layer, in layer order; valid
  // only during the call.
  virtual void OnHiddenAttention(const HiddenAttentionWeights& /*weights*/) {}
};

}  // namespace glance::lm
