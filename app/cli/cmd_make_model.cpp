// glance-cli make-model --shape tiny|0.8b|2b|4b --out DIR [--seed N] [--threads N]:
// a random-weight checkpoint with the real shapes (see core/model/random_model.h).
#include <cstdio>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "core/model/random_model.h"

namespace {

int RunMakeModel(const glance::cli::Args& args) {
  glance::cli::ArgParser p(args, {"shape", "out", "seed", "threads"}, {"quiet"});
  if (!p.positional().empty()) throw glance::Error("unexpected argument '" + p.positional()[0] + "'");
  if (!p.Has("shape") || !p.Has("out"))
    throw glance::Error("usage: glance-cli make-model --shape tiny|0.8b|2b|4b --out DIR [--seed N]");
  glance::MakeModelOptions o;
  o.shape = glance::ParseModelShape(*p.Get("shape"));
  o.out_dir = *p.Get("out");
  const long long seed = p.GetInt("seed", 0);
  if (seed < 0) throw glance::Error("--seed must be non-negative");
  o.seed = static_cast<uint64_t>(seed);
  o.threads = static_cast<int>(p.GetInt("threads", 0));
  const bool quiet = p.Has("quiet");
  int last_decile = -1;
  o.progress = [&](const std::string&, double fraction) {
    const int decile = static_cast<int>(fraction * 10.0);
    if (!quiet && decile != last_decile) {
      std::fprintf(stderr, "\rwriting weights: %3d%%", decile * 10);
      last_decile = decile;
    }
  };
  const glance::MakeModelResult r = glance::MakeRandomModel(o);
  if (!quiet) std::fprintf(stderr, "\n");
  std::printf("wrote %s model to %s: %lld tensors, %lld parameters, %.1f MiB in %.2f s (seed %llu)\n",
              glance::ModelShapeName(o.shape), o.out_dir.c_str(), static_cast<long long>(r.tensors),
              static_cast<long long>(r.parameters), static_cast<double>(r.bytes) / double(1 << 20), r.seconds,
              static_cast<unsigned long long>(o.seed));
  return 0;
}

glance::cli::Register reg("make-model", "make-model --shape tiny|0.8b|2b|4b --out DIR [--seed N] [--threads N] [--quiet]",
                          "write a random-weight Qwen3.5 checkpoint with real shapes (for tests and benchmarks)",
                          RunMakeModel);

}  // namespace
