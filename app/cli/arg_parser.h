#pragma once
// A tiny flag parser shared by the subcommands: `--name value`, `--name=value`, boolean
// `--flag`, and positionals. Unknown flags, single-dash options and a flag given twice are
// errors naming the flag (a repeated flag silently taking the last value hides typos in
// scripts), except the flags named repeatable (`--var a=1 --var b=2`: GetAll). `--help` / `-h` anywhere an option may stand throws HelpRequested: main() prints
// the command's usage. `--` ends the options (a file named "-h" is then a positional).
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "app/cli/command.h"
#include "core/util/error.h"

namespace glance::cli {

// Thrown by ArgParser for --help / -h; main() answers with the command's usage and exit 0.
struct HelpRequested {};

class ArgParser {
 public:
  // value_flags take a value; bool_flags do not; repeatable flags take a value each time they are
  // given. Names without the leading "--".
  ArgParser(const Args& args, std::set<std::string> value_flags, std::set<std::string> bool_flags,
            std::set<std::string> repeatable = {}) {
    bool options_ended = false;
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (options_ended) {
        positional_.push_back(a);
      } else if (a == "--") {
        options_ended = true;
      } else if (a == "--help" || a == "-h") {
        throw HelpRequested{};
      } else if (a.size() > 2 && a.rfind("--", 0) == 0) {
        std::string name = a.substr(2), value;
        const size_t eq = name.find('=');
        const bool has_eq = eq != std::string::npos;
        if (has_eq) {
          value = name.substr(eq + 1);
          name = name.substr(0, eq);
        }
        if (repeatable.count(name)) {
          if (!has_eq) {
            if (i + 1 >= args.size()) throw Error("--" + name + " needs a value");
            value = args[++i];
          }
          repeated_[name].push_back(value);
          continue;
        }
        if (flags_.count(name)) throw Error("--" + name + " is given twice; give it once");
        if (bool_flags.count(name)) {
          if (has_eq) throw Error("--" + name + " takes no value");
          flags_.insert_or_assign(name, std::string(1, '1'));
        } else if (value_flags.count(name)) {
          if (!has_eq) {
            if (i + 1 >= args.size()) throw Error("--" + name + " needs a value");
            value = args[++i];
          }
          flags_[name] = value;
        } else {
          throw Error("unknown option --" + name);
        }
      } else if (a.size() > 1 && a[0] == '-') {
        // "-" alone stays a positional (stdin by convention); "-x" is an option we do not have.
        throw Error("unknown option " + a + " (options are spelled --name; put -- before a file named " + a + ")");
      } else {
        positional_.push_back(a);
      }
    }
  }

  bool Has(const std::string& name) const { return flags_.count(name) > 0 || repeated_.count(name) > 0; }
  // Every value of a repeatable flag, in the order given (empty when it is absent).
  std::vector<std::string> GetAll(const std::string& name) const {
    auto it = repeated_.find(name);
    return it == repeated_.end() ? std::vector<std::string>{} : it->second;
  }
  // Two spellings of one option (an old name and the new one) given together are one option
  // given twice: refused as such, naming both as typed.
  void RefuseBoth(const std::string& a, const std::string& b) const {
    if (Has(a) && Has(b)) throw Error("--" + a + " and --" + b + " are the same option, so it is given twice; give it once");
  }
  std::optional<std::string> Get(const std::string& name) const {
    auto it = flags_.find(name);
    return it == flags_.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
  std::string Get(const std::string& name, const std::string& fallback) const {
    return Get(name).value_or(fallback);
  }
  long long GetInt(const std::string& name, long long fallback) const {
    auto v = Get(name);
    if (!v) return fallback;
    try {
      size_t used = 0;
      long long n = std::stoll(*v, &used);
      if (used != v->size()) throw std::invalid_argument("trailing");
      return n;
    } catch (const std::exception&) {
      throw Error("--" + name + " expects an integer, got '" + *v + "'");
    }
  }
  double GetDouble(const std::string& name, double fallback) const {
    auto v = Get(name);
    if (!v) return fallback;
    try {
      size_t used = 0;
      double n = std::stod(*v, &used);
      if (used != v->size()) throw std::invalid_argument("trailing");
      return n;
    } catch (const std::exception&) {
      throw Error("--" + name + " expects a number, got '" + *v + "'");
    }
  }
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::string> flags_;
  std::map<std::string, std::vector<std::string>> repeated_;
  std::vector<std::string> positional_;
};

}  // namespace glance::cli
