#include "core/checks/precision_check.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <filesystem>

#include "core/checks/check_run.h"
#include "core/checks/gate_table.h"
#include "core/checks/reference_data.h"
#include "core/engine/engine.h"
#include "core/engine/sampler.h"
#include "core/lm/language_model.h"
#include "core/lm/mrope.h"
#include "core/util/error.h"
#include "core/vision/image_preprocessor.h"
#include "core/vision/vision_tower.h"

namespace glance::checks {
namespace fs = std::filesystem;
namespace {

// KL(p ‖ q) of softmax(a) and softmax(b), in double.
double KlDivergence(const float* a, const float* b, int64_t n) {
  const double ma = *std::max_element(a, a + n), mb = *std::max_element(b, b + n);
  double za = 0, zb = 0;
  for (int64_t i = 0; i < n; ++i) {
    za += std::exp(double(a[i]) - ma);
    zb += std::exp(double(b[i]) - mb);
  }
  const double la = std::log(za) + ma, lb = std::log(zb) + mb;
  double kl = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double lpa = double(a[i]) - la, lpb = double(b[i]) - lb;
    kl += std::exp(lpa) * (lpa - lpb);
  }
  return std::max(kl, 0.0);
}

}  // namespace

CheckReport RunPrecisionCheck(const std::string& dir, const CheckOptions& options,
                              const std::function<void(const GateResult&)>& on_gate) {
  GateEvaluator gates(CheckKindFor(options), on_gate);
  const ReferenceData ref(dir);
  const auto engine = LoadCheckEngine(dir, options);
  const ModelConfig& cfg = engine->config();
  const int64_t V = cfg.text.vocab_size;

  // Vision features of the golden image(s) (their projections are Q8 in the q8 and q4 engines,
  // PrecisionPlan::vision), the prompt and the teacher-forced decode steps.
  const CheckRun run = RunCheck(ref, engine);
  const std::string p(Name(options.precision));
  {
    const std::vector<float> want = ref.F32("vision.image_embeds");
    const std::vector<float>& got = run.images.features;
    const double c = got.size() == want.size() ? Cosine(got.data(), want.data(), want.size()) : kUnmeasured;
    gates.Record(p + " vision embeddings",
                 {got.size() == want.size()
                      ? FormatFigure("cosine %.7f against the float32 reference", c)
                      : "size " + std::to_string(got.size()) + " vs reference " + std::to_string(want.size()),
                  {{Quantity::kCosine, c}}});
  }
  const int64_t L = static_cast<int64_t>(run.prefill.ids.size());
  const std::vector<float> want_prefill = ref.F32("prefill.logits");
  if (want_prefill.size() != run.prompt_logits.size())
    throw Error("check: prefill logits size differs from the reference in " + dir);
  double kl_sum = 0, kl_max = 0;
  int rows = 0, top1 = 0;
  double worst_margin = 0;  // largest reference margin among rows where the argmax differs
  auto score = [&](const float* ours, const float* want) {
    const double kl = KlDivergence(want, ours, V);
    kl_sum += kl;
    kl_max = std::max(kl_max, kl);
    const int32_t a = Argmax(ours, V), b = Argmax(want, V);
    top1 += a == b;
    // How close a call it was in the reference: its logit margin over our pick.
    if (a != b) worst_margin = std::max(worst_margin, double(want[b]) - double(want[a]));
    ++rows;
  };
  for (int64_t t = 0; t < L; ++t) score(run.prompt_logits.data() + t * V, want_prefill.data() + t * V);

  const std::vector<int64_t>& tokens = run.tokens;
  const std::vector<float> dlogits = ref.F32("decode.logits");
  const int64_t steps = static_cast<int64_t>(tokens.size());
  int agree = Argmax(run.decode[0].data(), V) == tokens[0];
  for (int64_t s = 1; s < steps; ++s) {
    const float* o = run.decode[size_t(s)].data();
    score(o, dlogits.data() + s * V);
    agree += Argmax(o, V) == tokens[size_t(s)];
  }
  const double mean_kl = kl_sum / rows, frac = double(top1) / rows;
  gates.Record(p + " KL divergence", {FormatFigure("mean %.2e, max %.2e nats over %d rows", mean_kl, kl_max, rows),
                                      {{Quantity::kMeanKl, mean_kl}, {Quantity::kMaxKl, kl_max}}});
  gates.Record(p + " top-1 agreement",
               {FormatFigure("%d/%d rows (%.1f%%); largest reference margin at a flip %.3g", top1, rows, 100.0 * frac,
                             worst_margin),
                {{Quantity::kAgreement, frac}}});
  gates.Record(p + " greedy decode",
               {FormatFigure("%d/%d teacher-forced steps give the golden greedy token", agree, int(steps)),
                {{Quantity::kAgreement, double(agree) / double(steps)}}});
  {
    // Negative control: the KL measure must tell one reference step from the next.
    double min_kl = 1e30;
    for (int64_t s = 0; s + 1 < steps; ++s)
      min_kl = std::min(min_kl, KlDivergence(dlogits.data() + s * V, dlogits.data() + (s + 1) * V, V));
    gates.Record("negative control (KL)",
                 {FormatFigure("reference step k vs k+1: min KL %.3g", min_kl), {{Quantity::kControl, min_kl}}});
  }
  RecordSessionGates(gates, ref, run);
  return gates.Finish();
}

}  // namespace glance::checks
