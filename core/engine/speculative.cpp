#include "core/engine/speculative.h"

#include <algorithm>

#include "core/engine/attention_capture.h"
#include "core/lm/mtp.h"

namespace glance {

void VerifyAttention::OnAttention(const lm::AttentionProbs& p) {
  Layer l;
  l.layer = p.layer;
  l.n_heads = p.n_heads;
  l.n_queries = p.n_queries;
  l.n_keys = p.n_keys;
  l.first_position = p.first_position + p.query_begin;
  l.probs.assign(p.probs, p.probs + static_cast<size_t>(p.n_heads * p.n_queries * p.n_keys));
  layers_.push_back(std::move(l));
}

void VerifyAttention::OnHiddenAttention(const lm::HiddenAttentionWeights& w) {
  Hidden h;
  h.layer = w.layer;
  h.n_heads = w.n_heads;
  h.n_queries = w.n_queries;
  h.n_keys = w.n_keys;
  h.positions.assign(w.positions, w.positions + w.n_keys);
  h.weights.assign(w.weights, w.weights + static_cast<size_t>(w.n_heads * w.n_queries * w.n_keys));
  if (w.totals) h.totals.assign(w.totals, w.totals + static_cast<size_t>(w.n_heads * w.n_queries));
  hidden_.push_back(std::move(h));
}

void VerifyAttention::AddRow(AttentionCapture& capture, int64_t row) const {
  for (const Layer& l : layers_) {
    // Row `row` saw the keys up to its own position (causal), as its decode step would.
    const int64_t n_keys = l.first_position + row + 1;
    capture.AddLayerRow(l.layer, l.n_heads, l.probs.data() + row * l.n_keys, l.n_queries * l.n_keys, n_keys);
  }
  // The hidden attention of row `row` is causal already (later verify rows weigh 0).
  for (const Hidden& h : hidden_)
    capture.AddHiddenRow(h.layer, h.n_heads, h.positions.data(), h.n_keys, h.weights.data() + row * h.n_keys,
                         h.n_queries * h.n_keys, h.totals.empty() ? nullptr : h.totals.data() + row, h.n_queries);
}

bool DraftAndVerify(const lm::LanguageModel& lm, lm::LmState& state, int64_t last, int k, int64_t draft_vocab,
                    const std::function<int64_t(std::span<float>)>& pick, bool capture_attention,
                    kernels::ThreadPool* pool, VerifyBatch& batch) {
  const std::vector<int64_t> drafts = lm.Draft(state, last, k, pick, /*draft_logits=*/nullptr, pool,
                                               draft_vocab > 0 ? draft_vocab : lm::kDefaultDraftVocab);
  if (drafts.empty()) return false;
  batch.rows.assign(1, last);
  batch.rows.insert(batch.rows.end(), drafts.begin(), drafts.end());
  batch.n_before = state.n_tokens;
  batch.used = 0;
  batch.attention.Clear();
  lm::ForwardInput in;
  in.ids = batch.rows;
  in.all_logits = true;
  in.row_states = &batch.row_states;
  lm.Forward(in, state, batch.out, pool, capture_attention ? &batch.attention : nullptr);
  return true;
}

void KeepRows(lm::LmState& state, const VerifyBatch& batch, size_t n) {
  const int64_t H = static_cast<int64_t>(batch.out.hidden.size() / batch.rows.size());
  state.KeepTokens(batch.n_before + static_cast<int64_t>(n), batch.n_before, batch.row_states,
                   batch.out.hidden.data() + static_cast<int64_t>(n - 1) * H);
}

}  // namespace glance
