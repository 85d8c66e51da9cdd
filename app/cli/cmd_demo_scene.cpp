// glance-cli demo-scene --out PNG [--seed N]: writes one of the bundled held-out scenes of the
// shapes world (the demo model's world) and says what is in it.
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "core/engine/demo_scenes.h"

namespace glance::cli {
namespace {

int DemoScene(const Args& args) {
  ArgParser p(args, {"out", "seed", "scenes"}, {});
  if (!p.positional().empty()) throw Error("demo-scene takes no positional arguments (usage: demo-scene --out PNG [--seed N])");
  const auto out = p.Get("out");
  if (!out || out->empty()) throw Error("--out PNG is required (where to write the scene)");
  const long long seed_flag = p.GetInt("seed", -1);
  if (p.Has("seed") && seed_flag < 0) throw Error("--seed must be a non-negative integer");
  const uint64_t seed = p.Has("seed") ? static_cast<uint64_t>(seed_flag)
                                      : static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  const DemoScenes scenes = LoadDemoScenes(p.Get("scenes", DefaultDemoScenesDir()));
  const glance::DemoScene& s = PickDemoScene(scenes, seed);
  std::error_code ec;
  std::filesystem::copy_file(s.image_path, *out, std::filesystem::copy_options::overwrite_existing, ec);
  if (ec) throw Error("--out " + *out + ": cannot write the scene (" + ec.message() + ")");
  std::printf("wrote %s: demo scene %d of %zu\nin it: %s\n", out->c_str(), s.index, scenes.scenes.size(),
              s.caption.c_str());
  return 0;
}

Register reg("demo-scene", "demo-scene --out PNG [--seed N] [--scenes DIR]",
             "write a held-out picture of the demo model's shapes world (the same seed, the same scene)", DemoScene);

}  // namespace
}  // namespace glance::cli
