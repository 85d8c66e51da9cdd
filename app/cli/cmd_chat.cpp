// glance-cli chat: a multi-turn REPL over one Session.
//   /image PATH   attach an image to the next message      /regenerate  answer the last message again
//   /reset        start a new conversation                 /stats       statistics of the last turn
//   /quit         leave (also end-of-input)
#include <cstdio>
#include <iostream>
#include <string>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "app/cli/json_output.h"
#include "app/cli/session_flags.h"

namespace glance::cli {

static void PrintHelpLine() {
  std::fprintf(stderr, "commands: /image PATH, /regenerate, /reset, /stats, /quit\n");
}

static int Chat(const Args& args) {
  auto flags = SessionValueFlags();
  flags.insert("image");
  ArgParser p(args, flags, {});
  if (!p.positional().empty()) throw Error("chat takes no positional arguments (use --image PATH)");
  auto engine = LoadEngineFromFlags(p);
  Session session(engine);
  if (auto sys = p.Get("system")) session.SetSystemPrompt(*sys);
  const ImageModeChoice mode = ParseMode(p);
  const GenerateOptions options = ParseGenerateOptions(p);
  auto attach = [&](const std::string& path) {
    const ImageInfo info = session.AttachImage(path, mode);
    std::fprintf(stderr, "[image %s: %dx%d -> %dx%d tokens]\n", path.c_str(), info.source_w,
                 info.source_h, info.grid_w, info.grid_h);
  };
  if (auto img = p.Get("image")) attach(*img);
  PrintHelpLine();
  StreamCallbacks cb;
  cb.on_text = [](const std::string& piece) {
    std::fwrite(piece.data(), 1, piece.size(), stdout);
    std::fflush(stdout);
  };
  TurnResult last;
  bool have_last = false;
  std::string line;
  for (;;) {
    std::fprintf(stderr, "> ");
    std::fflush(stderr);
    if (!std::getline(std::cin, line)) break;
    if (line.empty()) continue;
    try {
      if (line == "/quit" || line == "/exit") break;
      if (line == "/reset") {
        session.Reset();
        have_last = false;
        std::fprintf(stderr, "[new conversation]\n");
        continue;
      }
      if (line == "/stats") {
        std::fprintf(stderr, "%s\n", have_last ? StatsLine(last.stats).c_str() : "no turn yet");
        continue;
      }
      if (line.rfind("/image", 0) == 0) {
        const std::string path = line.size() > 7 ? line.substr(7) : "";
        if (path.empty()) throw Error("usage: /image PATH");
        attach(path);
        continue;
      }
      if (line == "/regenerate") {
        last = session.Regenerate(options, cb);
      } else if (line[0] == '/') {
        PrintHelpLine();
        continue;
      } else {
        last = session.Send(line, options, cb);
      }
      have_last = true;
      std::printf("\n");
      std::fflush(stdout);
    } catch (const Error& e) {
      // A bad command or file must not end the conversation.
      std::fprintf(stderr, "error: %s\n", e.what());
    }
  }
  return 0;
}

static Register reg("chat", "chat [--model DIR] [--image PATH] [--mode fast|detail] [--max-tokens N] ...",
                    "multi-turn chat in the terminal (/image, /regenerate, /reset, /stats, /quit)", Chat);

}  // namespace glance::cli
