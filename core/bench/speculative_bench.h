#pragma once
// The speculative-decoding figures of issue 14 (core/engine/speculative.h), measured:
//   * verify cost: on a big model (the 2B shape at q4, 2 threads, from make-model --shape 2b),
//     the time of a (k+1)-row verify forward over a 1-row decode step, k = 1, 2, 3
//     (verify_cost_ratio_k1..k3), the same with the MTP drafting added (step_cost_ratio_k*),
//     and the decode speed-up that implies at acceptance rates 0.5, 0.7, 0.9;
//   * on the trained demo model (or another checkpoint with an MTP layer): greedy captions of
//     the demo scenes with and without speculation, alternating, the acceptance rate
//     (mtp_acceptance) and the measured decode speed-up (mtp_speedup), with a check that the
//     answers are identical — recorded for this machine (record_path), which is what
//     `--speculative auto` reads.
// Timings alternate A/B per repetition (the machine may be shared); medians are reported.
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/engine/engine_options.h"

namespace glance {

struct SpeculativeBenchOptions {
  std::string cost_model_dir;  // empty: no verify-cost figures
  Precision cost_precision = Precision::kQ4;
  std::string demo_model_dir;  // the speed-up's model; empty: the bundled demo model
  Precision demo_precision = Precision::kF32;
  int threads = 2;
  int reps = 5;                // repetitions of each cost measurement (>= 1)
  int prompt_tokens = 64;      // cache length the cost is measured at
  int demo_scenes = 8;         // demo scenes captioned per side
  int max_new_tokens = 64;
  int draft_tokens = 1;        // k for the demo-model figures
  int64_t draft_vocab = 0;     // ids the MTP drafts from (0: lm::kDefaultDraftVocab; core/lm/mtp.h)
  // Where the measured speed-up is recorded for `--speculative auto`
  // (core/engine/speculative_record.h); empty: not recorded.
  std::string record_path;
  std::function<void(const std::string& stage)> progress;
};

// JSON object: verify_cost_ratio_k1..k3, step_cost_ratio_k1..k3, decode_step_ms,
// implied_speedup_k{1,2,3}_a{50,70,90}, mtp_acceptance, mtp_speedup, mtp_identical_output, and
// what was measured (models, threads, reps, load average before and after). Throws
// glance::Error (e.g. a cost model without an MTP layer).
nlohmann::json RunSpeculativeBench(const SpeculativeBenchOptions& options);

}  // namespace glance
