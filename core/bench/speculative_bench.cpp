#include "core/bench/speculative_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/engine/bench.h"
#include "core/engine/demo_scenes.h"
#include "core/engine/engine.h"
#include "core/engine/sampler.h"
#include "core/engine/session.h"
#include "core/engine/speculative.h"
#include "core/engine/speculative_record.h"
#include "core/lm/language_model.h"
#include "core/lm/mtp.h"
#include "core/text/tokenizer.h"
#include "core/util/error.h"

namespace glance {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

std::string LoadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a.empty() ? "unknown" : a + " " + b + " " + c;
}

std::shared_ptr<const Engine> LoadEngine(const std::string& dir, Precision precision, int threads) {
  EngineOptions o;
  o.threads = threads;
  o.backend = BackendKind::kCpu;
  o.precision = precision;
  return Engine::Load(dir, o);
}

int64_t DraftVocab(const SpeculativeBenchOptions& o) { return o.draft_vocab > 0 ? o.draft_vocab : lm::kDefaultDraftVocab; }

// Expected tokens per step with k drafts each accepted with probability a, independently
// (Leviathan et al. 2023, arXiv:2211.17192 eq. 1): (1 - a^(k+1)) / (1 - a).
double ExpectedTokensPerStep(double a, int k) { return (1.0 - std::pow(a, k + 1)) / (1.0 - a); }

// Cost of a 1-row decode step vs a (k+1)-row verify (MTP cache kept, per-row states copied,
// as Session runs it) and vs a whole speculative step (drafting included), alternating.
void MeasureCosts(const SpeculativeBenchOptions& o, nlohmann::json& j) {
  auto engine = LoadEngine(o.cost_model_dir, o.cost_precision, o.threads);
  const lm::LanguageModel& lm = engine->lm();
  if (!lm.has_mtp())
    throw Error("speculative bench: " + o.cost_model_dir + " has no MTP layer (make it with glance-cli make-model)");
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<int64_t> id(0, static_cast<int64_t>(engine->tokenizer().size()) - 1);
  std::vector<int64_t> prompt(static_cast<size_t>(std::max(2, o.prompt_tokens)));
  for (auto& t : prompt) t = id(rng);
  lm::LmState base = lm.NewState();
  lm.EnableMtp(base);
  lm::ForwardOutput out;
  lm::ForwardInput in;
  in.ids = prompt;
  lm.Forward(in, base, out, engine->pool());
  const int64_t next = id(rng);
  const auto pick = [&](std::span<float> l) -> int64_t { return Argmax(l.data(), static_cast<int64_t>(l.size())); };

  std::vector<double> plain;
  std::vector<std::vector<double>> verify(3), step(3);
  // One untimed round first: page in the weights and warm the caches.
  for (int rep = -1; rep < o.reps; ++rep) {
    {
      lm::LmState st = base;
      st.mtp.active = false;  // plain decoding keeps no MTP cache
      const auto t0 = Clock::now();
      lm::ForwardInput one;
      one.ids = std::span<const int64_t>(&next, 1);
      lm.Forward(one, st, out, engine->pool());
      if (rep >= 0) plain.push_back(Seconds(t0, Clock::now()));
    }
    for (int k = 1; k <= 3; ++k) {
      lm::LmState st = base;
      VerifyBatch batch;
      const auto t0 = Clock::now();
      const std::vector<int64_t> drafts = lm.Draft(st, next, k, pick, nullptr, engine->pool(), DraftVocab(o));
      const auto t1 = Clock::now();
      std::vector<int64_t> rows = {next};
      rows.insert(rows.end(), drafts.begin(), drafts.end());
      lm::ForwardInput v;
      v.ids = rows;
      v.all_logits = true;
      v.row_states = &batch.row_states;
      lm.Forward(v, st, batch.out, engine->pool());
      const auto t2 = Clock::now();
      if (rep >= 0) {
        verify[static_cast<size_t>(k - 1)].push_back(Seconds(t1, t2));
        step[static_cast<size_t>(k - 1)].push_back(Seconds(t0, t2));
      }
    }
  }
  const double plain_s = Summarise(plain).median;
  j["decode_step_ms"] = 1e3 * plain_s;
  for (int k = 1; k <= 3; ++k) {
    const std::string s = std::to_string(k);
    const double vr = Summarise(verify[static_cast<size_t>(k - 1)]).median / plain_s;
    const double sr = Summarise(step[static_cast<size_t>(k - 1)]).median / plain_s;
    j["verify_cost_ratio_k" + s] = vr;
    j["step_cost_ratio_k" + s] = sr;
    for (int a : {50, 70, 90})
      j["implied_speedup_k" + s + "_a" + std::to_string(a)] = ExpectedTokensPerStep(a / 100.0, k) / sr;
  }
  j["cost_model"] = {{"dir", o.cost_model_dir}, {"precision", std::string(Name(engine->info().precision))},
                     {"threads", engine->info().threads}, {"cache_tokens", prompt.size()}, {"reps", o.reps},
                     {"draft_vocab", std::min(DraftVocab(o), lm.config().vocab_size)}};
}

// Greedy captions of the demo scenes, plain and speculative alternately; decode seconds summed.
void MeasureDemo(const SpeculativeBenchOptions& o, nlohmann::json& j) {
  auto engine = LoadEngine(o.demo_model_dir.empty() ? DefaultDemoModelDir() : o.demo_model_dir, o.demo_precision,
                           o.threads);
  if (!engine->lm().has_mtp()) throw Error("speculative bench: " + engine->info().dir + " has no MTP layer");
  const DemoScenes scenes = LoadDemoScenes(DefaultDemoScenesDir());
  GenerateOptions g;
  g.max_new_tokens = o.max_new_tokens;
  g.sampling = SamplingParams::Greedy();
  g.enable_thinking = false;
  g.capture_attention = false;
  double plain_s = 0, spec_s = 0;
  int drafted = 0, accepted = 0, tokens = 0, passes_plain = 0, passes_spec = 0;
  bool identical = true;
  const int n = std::min<int>(o.demo_scenes, static_cast<int>(scenes.scenes.size()));
  for (int rep = -1; rep < o.reps; ++rep) {  // rep -1: warm-up, not counted
    for (int i = 0; i < n; ++i) {
      TurnResult r[2];
      const bool spec_first = (rep + 1 + i) % 2 == 1;  // alternate which side runs first
      for (int side = 0; side < 2; ++side) {
        const bool spec = (side == 0) == spec_first;
        Session s(engine);
        s.AttachImage(scenes.scenes[static_cast<size_t>(i)].image_path);
        GenerateOptions go = g;
        go.speculative_draft_tokens = spec ? o.draft_tokens : 0;
        go.speculative_draft_vocab = DraftVocab(o);
        r[spec ? 1 : 0] = s.Send("Describe this image.", go);
      }
      if (r[0].tokens != r[1].tokens) {
        identical = false;
        std::fprintf(stderr, "speculative bench: scene %d answers differ:\n  plain: %s\n  mtp:   %s\n", i,
                     r[0].text.c_str(), r[1].text.c_str());
      }
      if (rep < 0) continue;
      plain_s += r[0].stats.decode_s;
      spec_s += r[1].stats.decode_s;
      drafted += r[1].stats.drafted;
      accepted += r[1].stats.accepted;
      tokens += r[1].stats.generated_tokens;
      passes_plain += r[0].stats.weight_passes;
      passes_spec += r[1].stats.weight_passes;
    }
  }
  j["mtp_acceptance"] = drafted > 0 ? static_cast<double>(accepted) / drafted : 0.0;
  j["mtp_speedup"] = spec_s > 0 ? plain_s / spec_s : 0.0;
  j["mtp_identical_output"] = identical;
  j["mtp_tokens_per_weight_pass"] = passes_spec > 0 ? static_cast<double>(passes_plain) / passes_spec : 0.0;
  if (!o.record_path.empty()) {
    SaveSpeculativeMeasurement(o.record_path, SpeculativeRecordKeyFor(*engine),
                               {o.draft_tokens, spec_s > 0 ? plain_s / spec_s : 0.0,
                                drafted > 0 ? static_cast<double>(accepted) / drafted : 0.0, identical});
    j["record"] = o.record_path;
  }
  j["demo"] = {{"model", engine->info().dir}, {"scenes", n}, {"reps", o.reps}, {"draft_tokens", o.draft_tokens},
               {"draft_vocab", std::min(DraftVocab(o), engine->lm().config().vocab_size)},
               {"tokens", tokens},  {"plain_decode_s", plain_s}, {"speculative_decode_s", spec_s},
               {"threads", engine->info().threads}, {"precision", std::string(Name(engine->info().precision))}};
}

}  // namespace

nlohmann::json RunSpeculativeBench(const SpeculativeBenchOptions& o) {
  if (o.reps < 1) throw Error("speculative bench: reps must be at least 1");
  nlohmann::json j;
  j["load_average_before"] = LoadAverage();
  if (!o.cost_model_dir.empty()) {
    if (o.progress) o.progress("speculative verify cost");
    MeasureCosts(o, j);
  }
  if (o.progress) o.progress("speculative demo model");
  MeasureDemo(o, j);
  j["load_average_after"] = LoadAverage();
  return j;
}

}  // namespace glance
