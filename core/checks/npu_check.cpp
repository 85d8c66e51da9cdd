#include "core/checks/npu_check.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <filesystem>

#include "core/checks/check_gates.h"
#include "core/checks/check_run.h"
#include "core/checks/gate_table.h"
#include "core/checks/reference_data.h"
#include "core/engine/engine.h"
#include "core/engine/sampler.h"
#include "core/lm/language_model.h"
#include "core/lm/mrope.h"
#include "core/vision/image_preprocessor.h"
#include "core/vision/vision_tower.h"
#include "kernels/backend.h"

namespace glance::checks {

namespace fs = std::filesystem;

CheckReport RunNpuCheck(const std::string& dir, const CheckOptions& options,
                        const std::function<void(const GateResult&)>& on_gate) {
  GateEvaluator gates(CheckKind::kNpu, on_gate);
  const ReferenceData ref(dir);
  const auto engine = LoadCheckEngine(dir, options);
  const ModelConfig& cfg = engine->config();
  gates.Record("tokenizer", MeasureTokenizer(dir, engine->tokenizer()));
  gates.Record("chat template", MeasureTemplate(dir, engine->tokenizer(), engine->chat_template(),
                                                static_cast<int32_t>(cfg.image_token_id)));

  // ---- every output, computed once
  const CheckRun run = RunCheck(ref, engine);

  // ---- vision embeddings
  const std::vector<float>& features = run.images.features;
  {
    const std::vector<float> want = ref.F32("vision.image_embeds");
    if (want.size() != features.size()) {
      gates.Record("vision embeddings (npu)",
                   {"size " + std::to_string(features.size()) + " vs reference " + std::to_string(want.size()),
                    {{Quantity::kCosine, kUnmeasured}}});
    } else {
      const double c = Cosine(features.data(), want.data(), want.size());
      gates.Record("vision embeddings (npu)",
                   {FormatFigure("cosine %.6f, max |Δ| %.2e", c, MaxAbsDiff(features.data(), want.data(), want.size())),
                    {{Quantity::kCosine, c}}});
    }
  }

  // ---- prefill logits, every position
  const int64_t L = static_cast<int64_t>(run.prefill.ids.size()), V = cfg.text.vocab_size;
  const std::vector<float>& prompt_logits = run.prompt_logits;
  {
    const std::vector<float> want = ref.F32("prefill.logits");
    if (want.size() != prompt_logits.size()) {
      gates.Record("prefill logits cosine",
                   {"size mismatch", {{Quantity::kMeanCosine, kUnmeasured}, {Quantity::kMinCosine, kUnmeasured}}});
      gates.Record("prefill top-1", {"size mismatch", {{Quantity::kAgreement, kUnmeasured}}});
    } else {
      double min_cos = 1.0, sum_cos = 0.0;
      int same = 0;
      for (int64_t p = 0; p < L; ++p) {
        const double cs = Cosine(prompt_logits.data() + p * V, want.data() + p * V, static_cast<size_t>(V));
        min_cos = std::min(min_cos, cs);
        sum_cos += cs;
        same += Argmax(prompt_logits.data() + p * V, V) == Argmax(want.data() + p * V, V);
      }
      const double mean_cos = sum_cos / static_cast<double>(L);
      gates.Record("prefill logits cosine",
                   {FormatFigure("min %.6f, mean %.6f over %lld positions", min_cos, mean_cos, static_cast<long long>(L)),
                    {{Quantity::kMeanCosine, mean_cos}, {Quantity::kMinCosine, min_cos}}});
      gates.Record("prefill top-1", {FormatFigure("%d/%lld positions (%.1f%%)", same, static_cast<long long>(L),
                                                  100.0 * same / static_cast<double>(L)),
                                     {{Quantity::kAgreement, same / static_cast<double>(L)}}});
    }
  }

  // ---- decode, teacher-forced on the golden tokens
  const std::vector<int64_t>& tokens = run.tokens;
  const std::vector<float> dlogits = ref.F32("decode.logits");
  const int64_t steps = static_cast<int64_t>(tokens.size());
  const std::vector<std::vector<float>>& ours = run.decode;
  {
    // The control pairs each step with the reference's next one: the comparison must find every
    // step nearer its own reference step than the next (gate_table.cpp says why it is paired).
    int agree = 0;
    double min_cos = 1.0, shifted = -1.0, margin = -2.0;
    for (int64_t s = 0; s < steps; ++s) {
      const float* o = ours[static_cast<size_t>(s)].data();
      agree += Argmax(o, V) == tokens[static_cast<size_t>(s)];
      const double own = Cosine(o, dlogits.data() + s * V, static_cast<size_t>(V));
      min_cos = std::min(min_cos, own);
      if (s + 1 < steps) {
        const double next = Cosine(o, dlogits.data() + (s + 1) * V, static_cast<size_t>(V));
        shifted = std::max(shifted, next);
        margin = std::max(margin, next - own);
      }
    }
    gates.Record("decode (teacher-forced)",
                 {FormatFigure("%d/%lld tokens, min cosine %.6f", agree, static_cast<long long>(steps), min_cos),
                  {{Quantity::kAgreement, agree / static_cast<double>(steps)}, {Quantity::kMinCosine, min_cos}}});
    gates.Record("negative control (npu)",
                 {FormatFigure("step k vs reference step k+1: max cosine %.4f; nearest the next step by at most %.2e",
                               shifted, margin),
                  {{Quantity::kControl, margin}}});
  }

  // ---- the second turn from the cache, teacher-forced
  if (!run.turn2_tokens.empty()) {
    const std::vector<int64_t>& t2_tokens = run.turn2_tokens;
    const std::vector<float> t2_logits = ref.F32("turn2.logits");
    int ok = Argmax(run.turn2[0].data(), V) == t2_tokens[0];
    double min_cos = Cosine(run.turn2[0].data(), t2_logits.data(), static_cast<size_t>(V));
    for (size_t s = 1; s < t2_tokens.size(); ++s) {
      const float* o = run.turn2[s].data();
      ok += Argmax(o, V) == t2_tokens[s];
      min_cos = std::min(min_cos, Cosine(o, t2_logits.data() + static_cast<int64_t>(s) * V, static_cast<size_t>(V)));
    }
    gates.Record("second turn (npu)",
                 {FormatFigure("%d/%zu tokens, min cosine %.6f", ok, t2_tokens.size(), min_cos),
                  {{Quantity::kAgreement, ok / static_cast<double>(t2_tokens.size())}, {Quantity::kMinCosine, min_cos}}});
  }

  // ---- the NPU kernels really ran (and nothing fell back to the CPU)
  {
    // A count per kernel key (npu:gemm.<key>.x<n>, npu:gemv.<key>), the plan's host-f32
    // projections (host:f32, by design), and any projection that fell back to the CPU
    // (cpu:fallback, the only name that counts against the gate).
    int64_t gemm = 0, gemv = 0, fallback = 0;
    std::string figure;
    for (const auto& s : run.dispatches) {
      if (s.name.rfind("npu:gemm.", 0) == 0) gemm += s.calls;
      else if (s.name.rfind("npu:gemv.", 0) == 0) gemv += s.calls;
      else if (s.name == "cpu:fallback") fallback += s.calls;
      if (s.name == "host:npu-staging" || s.name == "sync:npu") continue;  // time, not dispatches
      figure += (figure.empty() ? "" : ", ") + s.name + FormatFigure(" %lld", static_cast<long long>(s.calls));
    }
    gates.Record("npu dispatches",
                 {engine->info().backend + ": " + (figure.empty() ? "none" : figure),
                  {{Quantity::kGemmCalls, static_cast<double>(gemm)},
                   {Quantity::kGemvCalls, static_cast<double>(gemv)},
                   {Quantity::kFallbackCalls, static_cast<double>(fallback)}}});
  }
  RecordSessionGates(gates, ref, run);
  return gates.Finish();
}

}  // namespace glance::checks
