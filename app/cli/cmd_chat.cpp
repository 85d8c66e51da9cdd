// glance-cli chat: a multi-turn REPL over one Session.
//   /image PATH   add an image to the next message          /regenerate  answer the last message again
//   /text TEXT    add text to the next message, not sending /send        send the message built so far
//   /reset        start a new conversation                  /stats       statistics of the last turn
//   /quit         leave (also end-of-input)
// A message is text and images in the order written: "Which is older? {image:a.png} or
// {image:b.png}" places each image where it stands; /image and /text build a message the same
// way over several lines. A line that fails (an image that cannot be read) adds nothing.
// Ctrl+C while an answer streams stops that answer and returns to the prompt; Ctrl+C at the
// prompt leaves (exit 130), as llama-cli does.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <functional>
#include <iostream>
#include <regex>
#include <string>
#include <vector>

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

const char* const kCommandList =
    "commands: /image PATH, /text TEXT, /send, /regenerate, /reset, /stats, /quit; "
    "{image:PATH} in a message places an image there";

// A message line split into text and {image:PATH} pieces, in order.
struct LinePiece {
  bool image = false;
  std::string value;  // the text, or the image's path
};
std::vector<LinePiece> SplitImageMarkers(const std::string& line) {
  static const std::regex marker(R"(\{image:([^}]*)\})");
  std::vector<LinePiece> out;
  size_t at = 0;
  for (auto it = std::sregex_iterator(line.begin(), line.end(), marker); it != std::sregex_iterator(); ++it) {
    const size_t start = static_cast<size_t>(it->position(0));
    if (start > at) out.push_back({false, line.substr(at, start - at)});
    std::string path = (*it)[1].str();
    if (path.empty()) throw Error("{image:} names no file (write {image:PATH})");
    out.push_back({true, std::move(path)});
    at = start + static_cast<size_t>(it->length(0));
  }
  if (at < line.size()) out.push_back({false, line.substr(at)});
  return out;
}

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
  // Adds a line's text and images to the next message in order, then runs `then` (sending it,
  // or nothing); when either fails, the message is put back as it was before the line (its
  // images attached again from their files), so a failed line never leaks into the next one.
  auto add_line = [&](const std::string& text, const std::function<void()>& then) {
    const std::vector<LinePiece> pieces = SplitImageMarkers(text);
    const std::vector<MessagePart> before = session.pending_parts();
    std::vector<std::string> before_paths;
    for (const MessagePart& part : before)
      if (part.kind == MessagePart::kImage) before_paths.push_back(session.images()[static_cast<size_t>(part.image)].path);
    try {
      for (const LinePiece& piece : pieces) {
        if (piece.image)
          attach(piece.value);
        else
          session.AddText(piece.value);
      }
      then();
    } catch (...) {
      session.ClearPending();
      size_t k = 0;
      for (const MessagePart& part : before) {
        if (part.kind == MessagePart::kText) session.AddText(part.text);
        else session.AttachImage(before_paths[k++], mode);
      }
      throw;
    }
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
      if (line == "/text" || line.rfind("/text ", 0) == 0) {
        if (line.size() <= 6) throw Error("usage: /text TEXT (adds TEXT to the next message without sending it)");
        add_line(line.substr(6), [] {});
        continue;
      }
      if (line == "/send") {
        last = answer([&] { return session.Send("", options, cb); });
      } else if (line == "/regenerate") {
        last = answer([&] { return session.Regenerate(options, cb); });
      } else if (line[0] == '/') {
        const std::string word = line.substr(0, line.find(' '));
        std::fprintf(stderr, "unknown command %s; %s\n", word.c_str(), kCommandList);
        continue;
      } else {
        add_line(line, [&] { last = answer([&] { return session.Send("", options, cb); }); });
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
             "multi-turn chat in the terminal (/image, /text, /send, /regenerate, /reset, /stats, /quit; "
             "{image:PATH} places an image mid-message; Ctrl+C stops an answer)",
             Chat);

}  // namespace
}  // namespace glance::cli
