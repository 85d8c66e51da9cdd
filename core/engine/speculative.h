#pragma once
// Self-speculative decoding with Qwen3.5's own MTP layer (issue 14; vLLM's MTP proposer and
// model_executor/models/qwen3_5_mtp.py describe the scheme; Leviathan et al. 2023,
// arXiv:2211.17192, the draft-then-verify loop):
//   1. draft k tokens after the last chosen one by chaining the MTP layer (core/lm/mtp.h);
//   2. verify [last, d1..dk] in one (k+1)-row forward of the main model: its rows share one
//      pass over the weights (the multi-row GEMV/GEMM), and row i's logits are what plain
//      decoding would compute after accepting d1..di;
//   3. the caller takes row 0's logits, then row i+1's only while its choice equals d(i+1)
//      (greedy: the argmax; sampling: the acceptance rule of speculative_sampling.h);
//   4. KeepRows rolls the state back to the rows used: Gated DeltaNet states from the
//      per-row copies the verify kept (they cannot be rewound), attention caches truncated.
//
// Exactness: row i of the verify runs the same per-row arithmetic as a one-row decode step
// (norms, conv, the delta rule token by token, attention). The projections' multi-row GEMVs
// give each row bit for bit its one-row result too, for every weight format up to 7 rows
// (tests/kernels/test_gemv_rows.cpp; the GEMMs, which sum in another order, start at 8), so
// the verify's logits (k <= 3: at most 4 rows) are plain decoding's exactly.
// tests/engine/test_speculative.cpp checks the tokens and the logits on every model it runs.
//
// Thread contract: as Session (one thread); the language model is shared read-only.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/lm/language_model.h"

namespace glance {

class AttentionCapture;

// The full-attention softmax rows of every verify row, kept so that each emitted token gets
// its own map, as plain decoding gives it (the row whose logits chose the token).
class VerifyAttention final : public lm::AttentionObserver {
 public:
  Rows rows() const override { return Rows::kAll; }
  void OnAttention(const lm::AttentionProbs& p) override;
  bool wants_hidden_attention() const override { return true; }
  void OnHiddenAttention(const lm::HiddenAttentionWeights& w) override;
  // Adds row `row`'s layers to the capture's current token.
  void AddRow(AttentionCapture& capture, int64_t row) const;
  void Clear() {
    layers_.clear();
    hidden_.clear();
  }

 private:
  struct Layer {
    int layer = 0, n_heads = 0;
    int64_t n_queries = 0, n_keys = 0, first_position = 0;
    std::vector<float> probs;  // [n_heads][n_queries][n_keys]
  };
  std::vector<Layer> layers_;
  struct Hidden {  // a DeltaNet layer's hidden attention, every verify row
    int layer = 0, n_heads = 0;
    int64_t n_queries = 0, n_keys = 0;
    std::vector<int64_t> positions;  // [n_keys]
    std::vector<float> weights;      // [n_heads][n_queries][n_keys], causal
    std::vector<float> totals;       // [n_heads][n_queries] Σ_j a_{t,j}, or empty (unknown)
  };
  std::vector<Hidden> hidden_;
};

// One draft-and-verify step's rows, consumed one by one.
struct VerifyBatch {
  std::vector<int64_t> rows;      // [last, d1, .., dk]
  int64_t n_before = 0;           // state.n_tokens before the verify forward
  lm::ForwardOutput out;          // logits [k+1][vocab], hidden [k+1][H]
  lm::RowStates row_states;
  VerifyAttention attention;
  size_t used = 0;                // rows whose logits were handed out

  size_t drafts() const { return rows.empty() ? 0 : rows.size() - 1; }
  const float* logits(size_t row) const { return out.logits.data() + row * static_cast<size_t>(out.vocab); }
};

// Drafts up to k tokens after `last` (chosen, not yet run) and verifies them. The MTP scores
// token ids [0, draft_vocab) (0: lm::kDefaultDraftVocab; core/lm/mtp.h), the others get -inf;
// `pick` chooses a draft from those logits. Returns false (state untouched) when the MTP cannot
// draft (no hidden state yet): the caller decodes one plain step instead.
bool DraftAndVerify(const lm::LanguageModel& lm, lm::LmState& state, int64_t last, int k, int64_t draft_vocab,
                    const std::function<int64_t(std::span<float>)>& pick, bool capture_attention,
                    kernels::ThreadPool* pool, VerifyBatch& batch);

// Keeps the first n rows of the batch's verify forward in `state` (1 <= n <= rows).
void KeepRows(lm::LmState& state, const VerifyBatch& batch, size_t n);

}  // namespace glance
