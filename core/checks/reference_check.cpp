#include "core/checks/reference_check.h"

#include <cmath>
#include <cstdarg>
#include <map>
#include <cstdio>
#include <filesystem>

#include "core/checks/check_gates.h"
#include "core/checks/check_run.h"
#include "core/checks/gate_table.h"
#include "core/checks/npu_check.h"
#include "core/checks/precision_check.h"
#include "core/checks/reference_data.h"
#include "core/engine/engine.h"
#include "core/engine/sampler.h"
#include "core/lm/language_model.h"
#include "core/util/error.h"
#include "core/vision/image_preprocessor.h"
#include "core/vision/vision_tower.h"

namespace glance::checks {

namespace fs = std::filesystem;

namespace {

// Keeps every reported attention row of the last query for each full-attention layer.
class RowRecorder final : public lm::AttentionObserver {
 public:
  Rows rows() const override { return Rows::kLastOnly; }
  void OnAttention(const lm::AttentionProbs& p) override {
    auto& dst = rows_[p.layer];
    dst.assign(static_cast<size_t>(p.n_heads * p.n_keys), 0.0f);
    for (int h = 0; h < p.n_heads; ++h) {
      const float* r = p.row(h, p.n_queries - 1);
      std::copy(r, r + p.n_keys, dst.begin() + h * p.n_keys);
    }
    n_keys_ = p.n_keys;
  }
  std::map<int, std::vector<float>> rows_;  // layer -> [heads][n_keys]
  int64_t n_keys_ = 0;
};

}  // namespace

CheckReport RunReferenceCheck(const std::string& dir, const CheckOptions& options,
                              const std::function<void(const GateResult&)>& on_gate) {
  const CheckKind kind = CheckKindFor(options);
  if (kind == CheckKind::kNpu) return RunNpuCheck(dir, options, on_gate);
  if (kind != CheckKind::kF32) return RunPrecisionCheck(dir, options, on_gate);
  GateEvaluator gates(kind, on_gate);
  const ReferenceData ref(dir);
  const auto engine = LoadCheckEngine(dir, options);
  const ModelConfig& cfg = engine->config();
  const int32_t pad = static_cast<int32_t>(cfg.image_token_id);

  gates.Record("tokenizer", MeasureTokenizer(dir, engine->tokenizer()));
  gates.Record("chat template", MeasureTemplate(dir, engine->tokenizer(), engine->chat_template(), pad));

  // ---- every output, computed once; the attention rows are compared as each step makes them
  RowRecorder recorder;
  auto attention_worst = [&](const std::string& prefix, int64_t step, double& worst) {
    for (const auto& [layer, row] : recorder.rows_) {
      const std::string key = prefix + std::to_string(layer);
      if (!ref.Has(key)) continue;
      const TensorView& v = ref.View(key);
      const std::vector<float> all = v.ToF32();
      const int64_t heads = v.shape[v.shape.size() - 2], width = v.shape.back();
      const int64_t n_keys = recorder.n_keys_;
      const float* base = all.data() + (step >= 0 ? step * heads * width : 0);
      for (int64_t h = 0; h < heads; ++h)
        worst = std::max(worst, MaxAbsDiff(row.data() + h * n_keys, base + h * width, static_cast<size_t>(n_keys)));
    }
  };
  double prompt_attn_worst = 0.0, attn_worst = 0.0;
  size_t prompt_attn_layers = 0;
  CheckRunHooks hooks;
  hooks.observer = &recorder;
  hooks.after_decode_step = [&](int64_t s) {
    if (s == 0) {  // the prompt's last row: its own reference, then decode step 0's
      attention_worst("prefill.attn_last_pos.layer", -1, prompt_attn_worst);
      prompt_attn_layers = recorder.rows_.size();
    }
    attention_worst("decode.attn.layer", s, attn_worst);
  };
  const CheckRun run = RunCheck(ref, engine, hooks);
  const ReferenceImages& images = run.images;

  // ---- pixel values and vision embeddings, image by image
  {
    const std::vector<float> want = ref.F32("pixel_values");
    const std::vector<float>& got = images.pixels;
    const Quantity q = images.resized ? Quantity::kMaxAbsResized : Quantity::kMaxAbs;
    if (got.size() != want.size()) {
      gates.Record("pixel values", {"size " + std::to_string(got.size()) + " vs reference " + std::to_string(want.size()),
                                    {{q, kUnmeasured}}});
    } else {
      const double d = MaxAbsDiff(got.data(), want.data(), got.size());
      gates.Record("pixel values", {FormatFigure("max |Δ| %.2e over %.0f values", d, static_cast<double>(got.size())),
                                    {{q, d}}});
    }
  }
  {
    const std::vector<float> want = ref.F32("vision.image_embeds");
    if (want.size() != images.features.size()) {
      gates.Record("vision embeddings",
                   {"size " + std::to_string(images.features.size()) + " vs reference " + std::to_string(want.size()),
                    {{Quantity::kMaxAbs, kUnmeasured}, {Quantity::kCosine, kUnmeasured}}});
    } else {
      const double d = MaxAbsDiff(images.features.data(), want.data(), want.size());
      const double c = Cosine(images.features.data(), want.data(), want.size());
      gates.Record("vision embeddings", {FormatFigure("max |Δ| %.2e, cosine %.7f", d, c),
                                         {{Quantity::kMaxAbs, d}, {Quantity::kCosine, c}}});
    }
  }

  // ---- prompt ids and positions, prefill logits, attention of the last prompt row
  const int64_t L = static_cast<int64_t>(run.prefill.ids.size());
  const int64_t V = cfg.text.vocab_size;
  const lm::MropePositions& pos = run.prefill.positions;
  {
    const std::vector<int64_t> want = ref.I64("prompt.position_ids");
    const int64_t delta = ref.I64("prompt.rope_deltas").at(0);
    const int mismatches = !run.prefill.ids_match + (want != pos.pos) + (delta != pos.rope_delta);
    // Say which part differs: a prompt rendered in another order can keep the rope delta.
    gates.Record("M-RoPE positions",
                 {"rope delta " + std::to_string(pos.rope_delta) + " (reference " + std::to_string(delta) + ")" +
                      (run.prefill.ids_match ? "" : "; the prompt's ids differ from prompt.input_ids") +
                      (want == pos.pos ? "" : "; positions differ"),
                  {{Quantity::kMismatches, static_cast<double>(mismatches)}}});
  }
  {
    const std::vector<float> want = ref.F32("prefill.logits");
    const std::vector<float>& got = run.prompt_logits;
    if (want.size() != got.size()) {
      gates.Record("prefill logits", {"size mismatch", {{Quantity::kMaxAbs, kUnmeasured}, {Quantity::kMismatches, kUnmeasured}}});
    } else {
      const double d = MaxAbsDiff(got.data(), want.data(), want.size());
      int same = 0;
      for (int64_t t = 0; t < L; ++t)
        same += Argmax(got.data() + t * V, V) == Argmax(want.data() + t * V, V);
      gates.Record("prefill logits",
                   {FormatFigure("max |Δ| %.2e, argmax equal at %d", d, same) + "/" + std::to_string(L) + " positions",
                    {{Quantity::kMaxAbs, d}, {Quantity::kMismatches, static_cast<double>(L - same)}}});
    }
  }
  gates.Record("attention (last prompt row)",
               {FormatFigure("max |Δ| %.2e over %.0f full-attention layers", prompt_attn_worst, static_cast<double>(prompt_attn_layers)),
                {{Quantity::kMaxAbs, prompt_attn_worst}, {Quantity::kCount, static_cast<double>(prompt_attn_layers)}}});

  // ---- greedy decode: each step teacher-forced on the reference token (equal to free greedy
  // decoding as long as every argmax agrees, which the gate requires).
  const std::vector<int64_t>& tokens = run.tokens;
  const std::vector<float> dlogits = ref.F32("decode.logits");
  const int64_t steps = static_cast<int64_t>(tokens.size());
  const auto& ours = run.decode;
  {
    double decode_worst = 0.0;
    int agree = 0;
    for (int64_t s = 0; s < steps; ++s) {
      const float* o = ours[static_cast<size_t>(s)].data();
      decode_worst = std::max(decode_worst, MaxAbsDiff(o, dlogits.data() + s * V, static_cast<size_t>(V)));
      agree += Argmax(o, V) == tokens[static_cast<size_t>(s)];
    }
    gates.Record("greedy decode",
                 {std::to_string(agree) + "/" + std::to_string(steps) + FormatFigure(" tokens, logits max |Δ| %.2e", decode_worst),
                  {{Quantity::kMismatches, static_cast<double>(steps - agree)}, {Quantity::kMaxAbs, decode_worst}}});
    gates.Record("attention (decode steps)", {FormatFigure("max |Δ| %.2e", attn_worst), {{Quantity::kMaxAbs, attn_worst}}});
  }
  {
    // Negative control: the logits gate must tell one step from the next.
    double min_diff = 1e30;
    for (int64_t s = 0; s + 1 < steps; ++s)
      min_diff = std::min(min_diff, MaxAbsDiff(ours[static_cast<size_t>(s)].data(), dlogits.data() + (s + 1) * V, static_cast<size_t>(V)));
    gates.Record("negative control", {FormatFigure("step k vs reference step k+1: min max |Δ| %.3g", min_diff),
                                      {{Quantity::kControl, min_diff}}});
  }

  // ---- the second turn, continued from the cache
  if (!run.turn2_tokens.empty()) {
    const std::vector<int64_t>& t2_tokens = run.turn2_tokens;
    const std::vector<float> t2_logits = ref.F32("turn2.logits");
    double worst = 0.0;
    int ok = 0;
    for (size_t s = 0; s < t2_tokens.size(); ++s) {
      const float* o = run.turn2[s].data();
      worst = std::max(worst, MaxAbsDiff(o, t2_logits.data() + static_cast<int64_t>(s) * V, static_cast<size_t>(V)));
      ok += Argmax(o, V) == t2_tokens[s];
    }
    gates.Record("second turn",
                 {std::to_string(ok) + "/" + std::to_string(t2_tokens.size()) + FormatFigure(" tokens from the cache, logits max |Δ| %.2e", worst),
                  {{Quantity::kMismatches, static_cast<double>(t2_tokens.size()) - ok}, {Quantity::kMaxAbs, worst}}});
  }
  RecordSessionGates(gates, ref, run);
  return gates.Finish();
}

}  // namespace glance::checks
