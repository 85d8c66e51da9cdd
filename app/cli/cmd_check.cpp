// glance-cli check DIR: every gate of the reference check, one line each; exit 1 if any fails.
#include <cstdio>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "app/cli/session_flags.h"
#include "core/checks/reference_check.h"

namespace glance::cli {

static int Check(const Args& args) {
  ArgParser p(args, {"threads", "backend", "bundle", "precision"}, {});
  if (p.positional().size() != 1) throw Error("usage: glance-cli check DIR");
  checks::CheckOptions o;
  o.threads = static_cast<int>(p.GetInt("threads", 0));
  o.backend = BackendFlag(p, BackendKind::kCpu);
  o.npu_bundle = p.Get("bundle", "");
  o.precision = PrecisionFlag(p, Precision::kF32);
  std::printf("reference check of %s\n", p.positional()[0].c_str());
  const checks::CheckReport r = checks::RunReferenceCheck(p.positional()[0], o, [](const checks::GateResult& g) {
    std::printf("%-5s %-28s %s   [%s]\n", g.skipped ? "SKIP" : g.passed ? "PASS" : "FAIL", g.name.c_str(),
                g.figure.c_str(), g.limit.c_str());
    std::fflush(stdout);
  });
  int passed = 0, failed = 0, skipped = 0;
  for (const auto& g : r.gates) (g.skipped ? skipped : g.passed ? passed : failed)++;
  std::printf("check: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return r.passed() ? 0 : 1;
}

static Register reg("check", "check DIR [--threads N] [--backend cpu|npu-emu|npu|auto] [--bundle DIR] [--precision f32|bf16|q8|q4]",
                    "run every gate against a Hugging Face reference folder (tests/data/tiny-a format)", Check);

}  // namespace glance::cli
