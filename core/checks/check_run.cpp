#include "core/checks/check_run.h"

#include "core/engine/engine.h"
#include "core/checks/gate_table.h"
#include "core/lm/language_model.h"
#include "core/util/error.h"

namespace glance::checks {

namespace {

// Feeds `id` and returns the next row's logits.
std::vector<float> Step(const Engine& engine, lm::LmState& state, lm::ForwardOutput& out, int64_t id,
                        lm::AttentionObserver* observer) {
  lm::ForwardInput in;
  in.ids = std::span<const int64_t>(&id, 1);
  engine.lm().Forward(in, state, out, engine.pool(), observer);
  return std::vector<float>(out.last(), out.last() + out.vocab);
}

}  // namespace

CheckRun RunCheck(const ReferenceData& ref, const std::shared_ptr<const Engine>& engine_ptr,
                  const CheckRunHooks& hooks) {
  const Engine& engine = *engine_ptr;
  CheckRun r;
  r.images = RunReferenceImages(ref, engine);
  r.prefill = PrefillReferencePrompt(ref, engine, r.images, hooks.observer);
  lm::LmState& state = r.prefill.state;
  r.tokens = ref.I64("decode.tokens");
  r.decode.emplace_back(r.prefill.out.last(), r.prefill.out.last() + r.prefill.out.vocab);
  r.prompt_logits = std::move(r.prefill.out.logits);
  r.prefill.out = {};
  lm::ForwardOutput out;
  if (hooks.after_decode_step) hooks.after_decode_step(0);
  for (size_t s = 1; s < r.tokens.size(); ++s) {
    r.decode.push_back(Step(engine, state, out, r.tokens[s - 1], hooks.observer));
    if (hooks.after_decode_step) hooks.after_decode_step(static_cast<int64_t>(s));
  }
  // The second turn from the cache (the last generated token is not fed yet): the rest of
  // turn2.input_ids, then its golden tokens teacher-forced.
  if (ref.Has("turn2.input_ids")) {
    const std::vector<int64_t> t2 = ref.I64("turn2.input_ids");
    r.turn2_tokens = ref.I64("turn2.tokens");
    lm::ForwardInput in;
    in.ids = std::span<const int64_t>(t2.data() + state.n_tokens, t2.size() - static_cast<size_t>(state.n_tokens));
    engine.lm().Forward(in, state, out, engine.pool());
    r.turn2.emplace_back(out.last(), out.last() + out.vocab);
    for (size_t s = 1; s < r.turn2_tokens.size(); ++s)
      r.turn2.push_back(Step(engine, state, out, r.turn2_tokens[s - 1], nullptr));
  }
  r.dispatches = engine.backend().Stats();
  try {
    r.session = RunSession(SessionScriptFromReference(ref), engine_ptr,
                           r.images.FeaturePointers(engine.config().text.hidden_size));
  } catch (const Error& e) {
    r.session_error = e.what();
  }
  return r;
}

void RecordSessionGates(GateEvaluator& gates, const ReferenceData& ref, const CheckRun& run) {
  if (!run.session_error.empty()) {
    for (const char* gate : {"session prompt ids", "session logits"})
      gates.Record(gate, {run.session_error, {{Quantity::kMismatches, kUnmeasured}, {Quantity::kMaxAbs, kUnmeasured}}});
    return;
  }
  gates.Record("session prompt ids", MeasureSessionIds(ref, run.session));
  gates.Record("session logits", MeasureSessionLogits(run.session, run.decode));
}

}  // namespace glance::checks
