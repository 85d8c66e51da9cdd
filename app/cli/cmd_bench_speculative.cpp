// glance-cli bench-speculative [--cost-model DIR] [--precision q4|q8|bf16|f32] [--model DIR]
//                              [--demo-precision f32|bf16|q8|q4] [--threads N]
//                              [--reps N] [--scenes N] [--draft-tokens K] [--max-new-tokens N]
//                              [--draft-vocab N] [--no-record]:
// the speculative-decoding figures of core/bench/speculative_bench.h as JSON: verify cost on a
// big model (make-model --shape 2b; q4 and 2 threads by default), acceptance and measured
// speed-up with identical output on the trained demo model or --model DIR — recorded for this
// machine, where `--speculative auto` looks (unless --no-record).
#include <cstdio>
#include <string>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "app/cli/session_flags.h"
#include "core/bench/speculative_bench.h"
#include "core/engine/speculative_record.h"

namespace {

int RunSpeculativeBenchCommand(const glance::cli::Args& args) {
  glance::cli::ArgParser p(args, {"cost-model", "precision", "model", "demo-precision", "threads", "reps", "scenes", "draft-tokens",
                                  "max-new-tokens", "draft-vocab"},
                           {"no-record"});
  if (!p.positional().empty())
    throw glance::Error("unexpected argument '" + p.positional()[0] + "' (use --cost-model DIR)");
  glance::SpeculativeBenchOptions o;
  o.cost_model_dir = p.Get("cost-model", "");
  o.cost_precision = glance::cli::PrecisionFlag(p, glance::Precision::kQ4);
  o.demo_model_dir = p.Get("model", "");
  o.demo_precision = glance::cli::PrecisionFlag(p, o.demo_precision, "demo-precision");
  o.threads = static_cast<int>(p.GetInt("threads", 2));
  o.reps = static_cast<int>(p.GetInt("reps", 5));
  o.demo_scenes = static_cast<int>(p.GetInt("scenes", 8));
  o.draft_tokens = static_cast<int>(p.GetInt("draft-tokens", 1));
  o.max_new_tokens = static_cast<int>(p.GetInt("max-new-tokens", 64));
  o.draft_vocab = p.GetInt("draft-vocab", 0);
  if (o.draft_vocab < 0) throw glance::Error("--draft-vocab must be at least 1 (0: the default)");
  if (o.threads < 0) throw glance::Error("--threads must be at least 0 (0: one per core, as chat's default)");
  if (o.reps < 1) throw glance::Error("--reps must be at least 1");
  if (o.draft_tokens < 1 || o.draft_tokens > 3) throw glance::Error("--draft-tokens must be 1, 2 or 3");
  if (o.demo_scenes < 1) throw glance::Error("--scenes must be at least 1");
  if (o.max_new_tokens < 2) throw glance::Error("--max-new-tokens must be at least 2");
  if (!p.Has("no-record")) {
    o.record_path = glance::DefaultSpeculativeRecordPath();
    if (o.record_path.empty()) std::fprintf(stderr, "bench-speculative: no cache folder (HOME unset): not recorded\n");
  }
  o.progress = [](const std::string& stage) { std::fprintf(stderr, "%s...\n", stage.c_str()); };
  std::printf("%s\n", glance::RunSpeculativeBench(o).dump(2).c_str());
  return 0;
}

}  // namespace

static glance::cli::Register reg(
    "bench-speculative",
    "bench-speculative [--cost-model DIR] [--precision q4|q8|bf16|f32] [--model DIR] [--demo-precision P]\n"
    "      [--threads N] [--reps N] [--scenes N] [--draft-tokens K] [--max-new-tokens N] [--draft-vocab N]\n"
    "      [--no-record]",
    "measure speculative decoding with the MTP layer: verify cost, acceptance, speed-up (JSON); the speed-up\n"
    "is recorded for this machine, which is what --speculative auto (the default) reads",
    RunSpeculativeBenchCommand);
