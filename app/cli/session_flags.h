#pragma once
// Flags shared by the commands that run the model (caption, chat): model folder, threads,
// sampling and image mode, turned into Engine/Session options.
//
// The flags are the settings registry's (core/settings/registry.h): the same keys, defaults
// and validators as the desktop app's settings, so `--top-p 2` is refused with the message the
// Settings dialog shows. Older flag names stay as aliases (--max-tokens = --max-new-tokens,
// --mode = --image-mode). Registry booleans take a value here: --greedy false, --attention on.
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "app/cli/arg_parser.h"
#include "core/engine/engine.h"
#include "core/engine/session.h"
#include "core/settings/registry.h"

namespace glance::cli {

// Old flag name -> the registry's flag name.
inline const std::map<std::string, std::string>& LegacyFlagAliases() {
  static const std::map<std::string, std::string> aliases = {{"max-tokens", "max-new-tokens"},
                                                             {"mode", "image-mode"}};
  return aliases;
}

inline std::set<std::string> SessionValueFlags() {
  std::set<std::string> flags;
  for (const settings::Key& k : settings::Registry())
    if (!k.cli_flag.empty()) flags.insert(k.cli_flag);
  for (const auto& [alias, flag] : LegacyFlagAliases()) flags.insert(alias);
  return flags;
}

// The registry's values with the flags given on the command line applied (validated and
// canonicalised; an error names the flag as typed).
inline settings::Values SessionValues(const ArgParser& p) {
  settings::Values values = settings::Defaults();
  auto apply = [&values](const settings::Key& key, const std::string& typed, const std::string& value) {
    if (auto err = settings::ValidationError(key, value)) throw Error("--" + typed + ": " + *err);
    values[key.name] = settings::Canonical(key.name, value);
  };
  for (const auto& [alias, flag] : LegacyFlagAliases())
    if (auto v = p.Get(alias)) apply(*settings::FindKeyByFlag(flag), alias, *v);
  for (const settings::Key& k : settings::Registry())
    if (!k.cli_flag.empty())
      if (auto v = p.Get(k.cli_flag)) apply(k, k.cli_flag, *v);
  // glance-cli has always sampled as soon as a temperature is given; --greedy still wins.
  if (p.Has("temperature") && !p.Has("greedy")) values["greedy"] = "false";
  return values;
}

inline ImageModeChoice ParseMode(const ArgParser& p) { return settings::ToImageMode(SessionValues(p)); }

inline GenerateOptions ParseGenerateOptions(const ArgParser& p) {
  GenerateOptions o = settings::ToGenerateOptions(SessionValues(p));
  o.sampling.Validate();
  return o;
}

// Loads --model (or the bundled demo, saying so on stderr).
inline std::shared_ptr<const Engine> LoadEngineFromFlags(const ArgParser& p) {
  const settings::Values values = SessionValues(p);
  EngineOptions eo = settings::ToEngineOptions(values);
  // The engine keeps its own default precision unless the flag asks for one.
  if (p.Has("precision")) eo.precision = settings::GetString(values, "precision");
  std::string dir = settings::GetString(values, "model_dir");
  if (dir.empty()) {
    dir = DefaultDemoModelDir();
    std::fprintf(stderr,
                 "note: no --model given; using the bundled demo model (random weights: its text is "
                 "gibberish) from %s\n", dir.c_str());
  }
  return Engine::Load(dir, eo);
}

}  // namespace glance::cli
