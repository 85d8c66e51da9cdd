// glance-cli make-reference --model DIR --image FILE --out DIR [--prompt TEXT] [--steps N]:
// a reference folder for `glance-cli check` whose reference outputs come from the f32 CPU
// engine (core/checks/engine_reference.h) — for models with no Hugging Face golden, such as
// the demo model or a make-model shape, so that `check --backend npu-emu` can measure the NPU
// numerics on them.
#include <cstdio>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "core/checks/engine_reference.h"

namespace glance::cli {

static int MakeReference(const Args& args) {
  ArgParser p(args, {"model", "image", "out", "prompt", "steps", "threads"}, {});
  const auto model = p.Get("model"), image = p.Get("image"), out = p.Get("out");
  if (!model || !image || !out || !p.positional().empty())
    throw Error("usage: glance-cli make-reference --model DIR --image FILE --out DIR [--prompt TEXT] [--steps N]");
  checks::EngineReferenceOptions o;
  o.model_dir = *model;
  o.image = *image;
  o.prompt = p.Get("prompt", o.prompt);
  o.steps = static_cast<int>(p.GetInt("steps", o.steps));
  o.threads = static_cast<int>(p.GetInt("threads", 0));
  checks::WriteEngineReference(o, *out);
  std::printf("wrote %s: reference outputs of the f32 CPU engine (%d greedy steps) for %s\n", out->c_str(), o.steps,
              model->c_str());
  return 0;
}

static Register reg("make-reference",
                    "make-reference --model DIR --image FILE --out DIR [--prompt TEXT] [--steps N] [--threads N]",
                    "write a check reference folder computed by the f32 CPU engine (for models without a golden)",
                    MakeReference);

}  // namespace glance::cli
