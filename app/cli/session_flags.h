#pragma once
// Flags shared by the commands that run the model (caption, chat): model folder, threads,
// sampling and image mode, turned into Engine/Session options.
//
// The flags are the settings registry's (core/settings/registry.h): the same keys, defaults
// and validators as the desktop app's settings, so `--top-p 2` is refused with the message the
// Settings dialog shows. Older flag names stay as aliases (--max-tokens = --max-new-tokens,
// --mode = --image-mode, --greedy true|false = --sampling greedy|custom); an alias and its
// flag together are refused as a flag given twice. Registry booleans take a value here:
// --attention on.
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "app/cli/arg_parser.h"
#include "core/engine/engine.h"
#include "core/engine/session.h"
#include "core/engine/speculative_record.h"
#include "core/lm/language_model.h"
#include "core/settings/registry.h"

namespace glance::cli {

// --precision / --backend for the commands outside the registry's flag set (check, bench);
// `flag` names another precision flag (bench-speculative's --demo-precision).
inline Precision PrecisionFlag(const ArgParser& p, Precision fallback, const std::string& flag = "precision") {
  const auto v = p.Get(flag);
  if (!v) return fallback;
  const auto parsed = ParsePrecision(*v);
  if (!parsed) throw Error("--" + flag + ": '" + *v + "' is not one of " + PrecisionNames());
  return *parsed;
}
inline BackendKind BackendFlag(const ArgParser& p, BackendKind fallback) {
  const auto v = p.Get("backend");
  if (!v) return fallback;
  const auto parsed = ParseBackend(*v);
  if (!parsed) throw Error("--backend: '" + *v + "' is not one of " + BackendNames());
  return *parsed;
}

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
  flags.insert("greedy");
  flags.insert("draft-tokens");
  return flags;
}

// The registry's values with the flags given on the command line applied (validated and
// canonicalised; an error names the flag as typed).
inline settings::Values SessionValues(const ArgParser& p) {
  for (const auto& [alias, flag] : LegacyFlagAliases()) p.RefuseBoth(alias, flag);
  p.RefuseBoth("greedy", "sampling");
  settings::Values values = settings::Defaults();
  auto apply = [&values](const settings::Key& key, const std::string& typed, const std::string& value) {
    if (auto err = settings::ValidationError(key, value)) {
      // The registry's message starts with the setting's name (what the settings file and the
      // dialog need); here the flag as typed names it instead of both.
      const std::string own = key.name + ": ";
      throw Error("--" + typed + ": " + (err->rfind(own, 0) == 0 ? err->substr(own.size()) : *err));
    }
    values[key.name] = settings::Canonical(key.name, value);
  };
  for (const auto& [alias, flag] : LegacyFlagAliases())
    if (auto v = p.Get(alias)) apply(*settings::FindKeyByFlag(flag), alias, *v);
  for (const settings::Key& k : settings::Registry())
    if (!k.cli_flag.empty())
      if (auto v = p.Get(k.cli_flag)) apply(k, k.cli_flag, *v);
  // glance-cli has always sampled as soon as a temperature is given; --sampling and --greedy win.
  if (p.Has("temperature") && !p.Has("sampling") && !p.Has("greedy")) values["sampling"] = settings::kSamplingCustom;
  if (auto v = p.Get("greedy"); v && !p.Has("sampling")) {
    static const std::set<std::string> yes = {"true", "1", "on", "yes"}, no = {"false", "0", "off", "no"};
    if (!yes.count(*v) && !no.count(*v)) throw Error("--greedy: '" + *v + "' is not a boolean; use true or false");
    values["sampling"] = yes.count(*v) ? settings::kSamplingGreedy : settings::kSamplingCustom;
  }
  return values;
}

inline ImageMode ParseMode(const ArgParser& p) { return settings::ToImageMode(SessionValues(p)); }

inline GenerateOptions ParseGenerateOptions(const ArgParser& p) {
  GenerateOptions o = settings::ToGenerateOptions(SessionValues(p));
  if (o.sampling) o.sampling->Validate();
  // --draft-tokens K (1..3): drafts per speculative step, chaining the MTP layer (CLI only).
  if (auto v = p.Get("draft-tokens")) {
    if (*v != "1" && *v != "2" && *v != "3") throw Error("--draft-tokens: '" + *v + "' is not 1, 2 or 3");
    if (o.speculative_draft_tokens == 0) throw Error("--draft-tokens needs --speculative mtp");
    o.speculative_draft_tokens = std::stoi(*v);
  }
  return o;
}

// --speculative mtp on a checkpoint without an MTP layer: say so instead of silently decoding
// plainly. --speculative auto (the default): decided here by this machine's record
// (core/engine/speculative_record.h), a damaged record file said in one line on stderr.
inline void ResolveSpeculative(GenerateOptions& o, const Engine& engine) {
  if (o.speculative_auto) {
    const SpeculativeAutoChoice c = ChooseSpeculativeAuto(engine, DefaultSpeculativeRecordPath());
    if (!c.warning.empty()) std::fprintf(stderr, "%s\n", c.warning.c_str());
    o.speculative_auto = false;
    o.speculative_draft_tokens = c.draft_tokens;
  }
  if (o.speculative_draft_tokens > 0 && !engine.lm().has_mtp())
    throw Error("--speculative mtp: " + engine.info().dir + " has no MTP layer (no mtp.* tensors; glance-cli info shows it)");
}

// Loads --model (or the bundled demo, saying so on stderr; a weight cache that could not be
// written is one warning line).
inline std::shared_ptr<const Engine> LoadEngineFromFlags(const ArgParser& p) {
  const settings::Values values = SessionValues(p);
  const EngineOptions eo = settings::ToEngineOptions(values);
  std::string dir = settings::GetString(values, "model_dir");
  if (dir.empty()) {
    dir = DefaultDemoModelDir();
    std::fprintf(stderr,
                 "note: no --model given; using the bundled demo model (a tiny model trained on "
                 "pictures of coloured shapes; try glance-cli demo-scene) from %s\n", dir.c_str());
  }
  auto engine = Engine::Load(dir, eo);
  // The weights could not be cached (a full disk): the model works, the next start is slower.
  if (!engine->info().weight_cache_warning.empty())
    std::fprintf(stderr, "warning: %s\n", engine->info().weight_cache_warning.c_str());
  return engine;
}

}  // namespace glance::cli
