#pragma once
// glance-cli subcommands register themselves here; main() dispatches on argv[1].
// Each command lives in its own cmd_*.cpp and is a function of its arguments (argv[2..]).
#include <functional>
#include <string>
#include <vector>

namespace glance::cli {

using Args = std::vector<std::string>;
using CommandFn = std::function<int(const Args&)>;

struct Command {
  std::string name;
  std::string usage;    // "caption IMAGE [--model DIR] ..."
  std::string summary;  // one line
  CommandFn run;
};

std::vector<Command>& Registry();

struct Register {
  Register(std::string name, std::string usage, std::string summary, CommandFn fn) {
    Registry().push_back({std::move(name), std::move(usage), std::move(summary), std::move(fn)});
  }
};

}  // namespace glance::cli
