#pragma once
// Hook for reading the softmax weights of the full-attention layers (design.md "Attention
// capture"). The forward calls it only when an observer is passed: no observer, no cost.
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

class AttentionObserver {
 public:
  enum class Rows { kLastOnly, kAll };
  virtual ~AttentionObserver() = default;
  // Which query rows to report. kAll stores n_heads·T·n_keys floats per layer.
  virtual Rows rows() const { return Rows::kLastOnly; }
  // Called on the forward's calling thread, once per full-attention layer, in layer order.
  // `probs` is valid only during the call.
  virtual void OnAttention(const AttentionProbs& probs) = 0;
};

}  // namespace glance::lm
