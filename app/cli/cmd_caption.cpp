// glance-cli caption IMAGE: one image, one question, the answer streamed to stdout.
#include <cstdio>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "app/cli/json_output.h"
#include "app/cli/session_flags.h"

namespace glance::cli {

static int Caption(const Args& args) {
  auto flags = SessionValueFlags();
  flags.insert("prompt");
  ArgParser p(args, flags, {"json", "no-attention"});
  std::string image;
  if (p.positional().size() > 1) throw Error("caption takes one IMAGE");
  image = p.positional().empty() ? DefaultDemoImagePath() : p.positional()[0];
  if (p.positional().empty()) std::fprintf(stderr, "note: no IMAGE given; using the bundled demo image %s\n", image.c_str());
  auto engine = LoadEngineFromFlags(p);
  Session session(engine);
  if (auto sys = p.Get("system")) session.SetSystemPrompt(*sys);
  const ImageInfo info = session.AttachImage(image, ParseMode(p));
  GenerateOptions options = ParseGenerateOptions(p);
  options.capture_attention = p.Has("json") && !p.Has("no-attention");
  const bool json = p.Has("json");
  if (!json)
    std::fprintf(stderr, "%s: %dx%d -> %dx%d, %dx%d = %d tokens\n", image.c_str(), info.source_w,
                 info.source_h, info.resized_w, info.resized_h, info.grid_w, info.grid_h, info.tokens());
  StreamCallbacks cb;
  if (!json) cb.on_text = [](const std::string& piece) {
    std::fwrite(piece.data(), 1, piece.size(), stdout);
    std::fflush(stdout);
  };
  const TurnResult r = session.Send(p.Get("prompt", "Describe this image."), options, cb);
  if (json) {
    std::printf("%s\n", CaptionJson(engine->info(), info, r).c_str());
  } else {
    std::printf("\n");
    std::fprintf(stderr, "%s\n", StatsLine(r.stats).c_str());
  }
  return 0;
}

static Register reg("caption",
                    "caption [IMAGE] [--model DIR] [--prompt TEXT] [--mode fast|detail] [--max-tokens N] "
                    "[--json] [--threads N] [--temperature T --top-k K --top-p P --min-p P --seed S]",
                    "caption an image (default: the bundled demo image and model)", Caption);

}  // namespace glance::cli
