#pragma once
// The tiny-a model loaded once for all LM tests, plus an attention recorder.
#include <map>
#include <vector>

#include "core/lm/language_model.h"
#include "golden.h"

namespace glance::lm::testing {

struct TinyModel {
  TensorStore store = TensorStore::OpenFolder(TinyDir());
  ModelConfig cfg = TinyConfig();
  LanguageModel model = LanguageModel::Load(store, cfg.text);
};

inline const TinyModel& GetTinyModel() {
  static const TinyModel m;
  return m;
}

// Keeps the last reported query row of every full-attention layer: [n_heads][n_keys].
class LastRowRecorder : public AttentionObserver {
 public:
  void OnAttention(const AttentionProbs& p) override {
    auto& dst = rows[p.layer];
    dst.clear();
    n_keys[p.layer] = p.n_keys;
    for (int h = 0; h < p.n_heads; ++h) {
      const float* r = p.row(h, p.n_queries - 1);
      dst.insert(dst.end(), r, r + p.n_keys);
    }
  }
  std::map<int, std::vector<float>> rows;
  std::map<int, int64_t> n_keys;
};

// Prefill of the golden prompt, fed prefill.inputs_embeds (image rows included) and the
// golden's M-RoPE positions recomputed by ComputeMropePositions.
struct PrefillRun {
  LmState state;
  ForwardOutput out;
  LmTrace trace;
  LastRowRecorder attn;
};

inline PrefillRun RunGoldenPrefill(bool all_logits, DeltaRuleMode mode = DeltaRuleMode::kAuto,
                                   bool use_mrope = true) {
  const TinyModel& m = GetTinyModel();
  const Golden& g = GetGolden();
  const auto ids = g.I64("prompt.input_ids");
  const auto embeds = g.F32("prefill.inputs_embeds");
  const auto thw = g.I64("image_grid_thw");
  const int64_t merge = m.cfg.vision.spatial_merge_size;
  const std::vector<ImageGrid> grids = {ImageGrid{thw[1] / merge, thw[2] / merge}};
  const MropePositions pos = ComputeMropePositions(ids, m.cfg.image_token_id, grids);
  PrefillRun run;
  run.state = m.model.NewState();
  run.trace.linear_layer = 0;
  run.trace.attn_layer = 3;
  ForwardInput in;
  in.ids = ids;
  in.embeddings = embeds.data();
  in.positions = use_mrope ? pos.pos.data() : nullptr;  // nullptr: plain 0..T-1
  in.all_logits = all_logits;
  in.delta_rule = mode;
  in.trace = &run.trace;
  m.model.Forward(in, run.state, run.out, nullptr, &run.attn);
  if (use_mrope) run.state.rope_delta = pos.rope_delta;
  return run;
}

}  // namespace glance::lm::testing
