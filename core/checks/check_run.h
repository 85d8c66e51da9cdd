#pragma once
// The outputs every kind of reference check gates, computed once (one driver; the checks
// reference_check.cpp for f32, precision_check.cpp and npu_check.cpp measure them against the
// gates of gate_table.cpp):
//   - the folder's image(s) through the vision tower (RunReferenceImages),
//   - the reference prompt through the product's prompt path, logits at every position
//     (PrefillReferencePrompt),
//   - decode teacher-forced on the golden tokens: one logits row per step, step 0 being the
//     prompt's last row and step s the row after feeding tokens[s-1],
//   - the second turn (golden.json turn2), continued from that cache and teacher-forced,
//   - then the same conversation sent through a Session (session_run.h), the prompt path users
//     get, teacher-forced on the same tokens.
// The first four are the computation Hugging Face made for the golden (one all-row prefill, the
// second turn continuing the generated cache), so their figures compare like with like; the
// Session's are gated against them and against the reference's ids.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/checks/reference_data.h"
#include "core/checks/session_run.h"
#include "kernels/backend.h"

namespace glance::checks {

struct CheckRun {
  ReferenceImages images;
  ReferencePrefill prefill;                 // its state ends after the decode steps (+ turn 2)
  std::vector<float> prompt_logits;         // [prompt rows][vocab]
  std::vector<int64_t> tokens;              // decode.tokens
  std::vector<std::vector<float>> decode;   // [steps][vocab]
  std::vector<int64_t> turn2_tokens;        // turn2.tokens (empty: the folder has no turn 2)
  std::vector<std::vector<float>> turn2;    // [turn2 steps][vocab]
  // The backend's counters after the outputs above, before the Session's run: the dispatches
  // of one pass over the reference.
  std::vector<kernels::KernelStat> dispatches;
  SessionRun session;
  // Why the reference conversation could not go through a Session (one line naming the
  // message or part), when it could not: the two session gates then fail with this as their
  // figure, and every other gate still runs and reports.
  std::string session_error;
};

struct CheckRunHooks {
  // Sees the full-attention rows of the prompt and of every decode step (not of turn 2).
  lm::AttentionObserver* observer = nullptr;
  // Called after decode step s has been computed (s = 0 right after the prompt).
  std::function<void(int64_t step)> after_decode_step;
};

CheckRun RunCheck(const ReferenceData& ref, const std::shared_ptr<const Engine>& engine,
                  const CheckRunHooks& hooks = {});

// Records the gates "session prompt ids" and "session logits" (every check kind has them).
void RecordSessionGates(GateEvaluator& gates, const ReferenceData& ref, const CheckRun& run);

}  // namespace glance::checks
