// glance-cli chat: a multi-turn REPL over one Session.
//   /image PATH   attach an image to the next message      /regenerate  answer the last message again
//   /reset        start a new conversation                 /stats       statistics of the last turn
//   /quit         leave (also end-of-input)
// Ctrl+C while an answer streams stops that answer and returns to the prompt; Ctrl+C at the
// prompt leaves (exit 130), as llama-cli does.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <iostream>
#include <string>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "app/cli/json_output.h"
#include "app/cli/session_flags.h"
#include "app/cli/std_streams.h"

namespace glance::cli {
namespace {

// Set by the SIGINT handler while an answer streams; the session checks it before every token.
std::atomic<bool> g_stop_answer{false};
volatile sig_atomic_t g_answering = 0;
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler stores to it");

void OnInterrupt(int) {
  if (g_answering) {
    g_stop_answer.store(true);
    return;
  }
  // At the prompt (or attaching an image): leave. Answers are flushed as they stream, so
  // nothing is lost; only async-signal-safe calls here.
  const char nl = '\n';
  (void)!::write(STDERR_FILENO, &nl, 1);
  ::_exit(130);
}

void InstallInterruptHandler() {
  struct sigaction sa = {};
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, nullptr);
}

const char* const kCommandList = "commands: /image PATH, /regenerate, /reset, /stats, /quit";

int Chat(const Args& args) {
  auto flags = SessionValueFlags();
  flags.insert("image");
  ArgParser p(args, flags, {});
  if (!p.positional().empty()) throw Error("chat takes no positional arguments (use --image PATH)");
  if (!StdinWasOpen())
    throw Error("standard input is closed; chat reads your messages from it (run it in a terminal or pipe text in)");
  auto engine = LoadEngineFromFlags(p);
  Session session(engine);
  if (auto sys = p.Get("system")) session.SetSystemPrompt(*sys);
  const auto mode = ParseMode(p);
  GenerateOptions options = ParseGenerateOptions(p);
  ResolveSpeculative(options, *engine);
  auto attach = [&](const std::string& path) {
    const ImageInfo info = session.AttachImage(path, mode);
    std::fprintf(stderr, "[image %s: %dx%d -> %dx%d tokens]\n", path.c_str(), info.source_w,
                 info.source_h, info.grid_w, info.grid_h);
  };
  if (auto img = p.Get("image")) attach(*img);
  std::fprintf(stderr, "%s (Ctrl+C stops an answer)\n", kCommandList);
  StreamCallbacks cb;
  cb.on_text = [](const std::string& piece) {
    std::fwrite(piece.data(), 1, piece.size(), stdout);
    std::fflush(stdout);
  };
  cb.cancel = &g_stop_answer;
  InstallInterruptHandler();
  // One answer, interruptible by Ctrl+C.
  auto answer = [&](auto&& generate) {
    g_stop_answer.store(false);
    g_answering = 1;
    TurnResult r;
    try {
      r = generate();
    } catch (...) {
      g_answering = 0;
      throw;
    }
    g_answering = 0;
    std::printf("\n");
    std::fflush(stdout);
    if (r.stop_reason == "cancelled") std::fprintf(stderr, "[stopped]\n");
    return r;
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
      if (line == "/image" || line.rfind("/image ", 0) == 0) {
        const std::string path = line.size() > 7 ? line.substr(7) : "";
        if (path.empty()) throw Error("usage: /image PATH");
        attach(path);
        continue;
      }
      if (line == "/regenerate") {
        last = answer([&] { return session.Regenerate(options, cb); });
      } else if (line[0] == '/') {
        const std::string word = line.substr(0, line.find(' '));
        std::fprintf(stderr, "unknown command %s; %s\n", word.c_str(), kCommandList);
        continue;
      } else {
        last = answer([&] { return session.Send(line, options, cb); });
      }
      have_last = true;
    } catch (const Error& e) {
      // A bad command or file must not end the conversation.
      std::fprintf(stderr, "error: %s\n", e.what());
    }
  }
  return 0;
}

Register reg("chat", "chat [--model DIR] [--image PATH] [--mode fast|detail] [--max-tokens N] ...",
             "multi-turn chat in the terminal (/image, /regenerate, /reset, /stats, /quit; Ctrl+C stops an answer)",
             Chat);

}  // namespace
}  // namespace glance::cli
