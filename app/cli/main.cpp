// glance-cli: the command-line front end. Thin: each subcommand is a cmd_*.cpp file that
// calls into glance_core. Errors go to stderr with a non-zero exit.
#include <algorithm>
#include <cstdio>
#include <exception>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "app/cli/std_streams.h"
#include "core/util/error.h"

namespace glance::cli {
std::vector<Command>& Registry() {
  static std::vector<Command> commands;
  return commands;
}
}  // namespace glance::cli

static void PrintHelp() {
  auto commands = glance::cli::Registry();
  std::sort(commands.begin(), commands.end(), [](auto& a, auto& b) { return a.name < b.name; });
  std::printf("glance-cli %s — Qwen3.5 image captioning and chat on your own machine\n\n",
              GLANCE_VERSION);
  std::printf("usage: glance-cli COMMAND [ARGS...]\n\ncommands:\n");
  for (const auto& c : commands) std::printf("  %-12s %s\n      %s\n", c.name.c_str(), c.summary.c_str(), c.usage.c_str());
}

static void PrintCommandHelp(const glance::cli::Command& c) {
  std::printf("usage: glance-cli %s\n\n%s\n", c.usage.c_str(), c.summary.c_str());
}

int main(int argc, char** argv) {
  glance::cli::GuardStandardStreams();
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" ||
      std::string(argv[1]) == "help") {
    PrintHelp();
    return argc < 2 ? 2 : 0;
  }
  if (std::string(argv[1]) == "--version") {
    std::printf("glance-cli %s\n", GLANCE_VERSION);
    return 0;
  }
  const std::string name = argv[1];
  for (const auto& c : glance::cli::Registry()) {
    if (c.name != name) continue;
    glance::cli::Args args(argv + 2, argv + argc);
    try {
      return c.run(args);
    } catch (const glance::cli::HelpRequested&) {
      PrintCommandHelp(c);
      return 0;
    } catch (const glance::Error& e) {
      std::fprintf(stderr, "glance-cli %s: %s\n", name.c_str(), e.what());
      return 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "glance-cli %s: internal error: %s\n", name.c_str(), e.what());
      return 3;
    }
  }
  std::fprintf(stderr, "glance-cli: unknown command '%s' (try glance-cli --help)\n", name.c_str());
  return 2;
}
