#include "app/cli/caption_preset_flags.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <vector>

#include "core/settings/registry.h"
#include "core/util/error.h"

namespace glance::cli {
namespace {

// --var name=VALUE, each name once.
std::map<std::string, std::string> VarFlags(const ArgParser& p) {
  std::map<std::string, std::string> vars;
  for (const std::string& v : p.GetAll(kPresetRepeatableFlag)) {
    const size_t eq = v.find('=');
    if (eq == std::string::npos || eq == 0) throw Error("--var '" + v + "': give name=VALUE (e.g. --var name=Ada)");
    const std::string name = v.substr(0, eq);
    if (!vars.emplace(name, v.substr(eq + 1)).second) throw Error("--var " + name + " is given twice; give it once");
  }
  return vars;
}

// A flag of the registry's Sampling group (or the old --greedy) given on the command line.
bool SamplingFlagGiven(const ArgParser& p) {
  if (p.Has("greedy")) return true;
  for (const settings::Key& k : settings::Registry())
    if (k.group == "Sampling" && !k.cli_flag.empty() && p.Has(k.cli_flag)) return true;
  return false;
}

}  // namespace

std::optional<PresetChoice> PresetFromFlags(const ArgParser& p) {
  if (!p.Has("preset")) {
    for (const char* f : {"preset-file", kPresetRepeatableFlag})
      if (p.Has(f)) throw Error(std::string("--") + f + " is for --preset NAME (a caption preset)");
    return std::nullopt;
  }
  if (p.Has("prompt")) throw Error("--prompt and --preset both say what to ask; give one");
  const std::string name = p.Get("preset", "");
  std::vector<CaptionPreset> candidates;
  if (auto file = p.Get("preset-file")) {
    try {
      std::error_code ec;
      if (!std::filesystem::exists(*file, ec)) throw Error(*file + ": no such file");
      candidates = ReadCaptionPresetsFile(*file);
    } catch (const Error& e) {
      throw Error(std::string("--preset-file: ") + e.what());
    }
  }
  const bool found = IsBuiltInCaptionPresetName(name) ||
                     std::any_of(candidates.begin(), candidates.end(), [&](const CaptionPreset& c) { return c.name == name; });
  if (!found) {  // the app's saved presets, only when needed: a damaged file does not block the others
    const std::string saved_path = DefaultCaptionPresetsPath();
    if (!saved_path.empty()) {
      std::vector<CaptionPreset> saved = ReadCaptionPresetsFile(saved_path);
      for (CaptionPreset& s : saved)
        if (std::none_of(candidates.begin(), candidates.end(), [&](const CaptionPreset& c) { return c.name == s.name; }))
          candidates.push_back(std::move(s));
    }
  }
  PresetChoice choice;
  try {
    choice.preset = FindCaptionPreset(name, candidates);
  } catch (const Error& e) {
    throw Error(std::string("--preset: ") + e.what());
  }
  const std::map<std::string, std::string> vars = VarFlags(p);
  for (const std::string& placeholder : CaptionPresetPlaceholders(choice.preset))
    if (!vars.count(placeholder))
      throw Error("--preset " + name + " uses {" + placeholder + "}: give --var " + placeholder + "=VALUE");
  try {
    choice.prompt = CaptionPresetPrompt(choice.preset, vars);
  } catch (const Error& e) {
    throw Error(std::string("--var: ") + e.what());
  }
  return choice;
}

void ApplyPresetFlags(const PresetChoice& choice, const ArgParser& p, GenerateOptions& options) {
  GenerateOptions preset = options;
  ApplyCaptionPreset(choice.preset, preset);
  if (!p.Has("max-tokens") && !p.Has("max-new-tokens")) options.max_new_tokens = preset.max_new_tokens;
  if (!SamplingFlagGiven(p)) {
    options.sampling = preset.sampling;
    options.seed = preset.seed;
  }
}

std::string DescribePresetChoice(const PresetChoice& choice, const GenerateOptions& options) {
  std::ostringstream s;
  s << "preset '" << choice.preset.name << "': \"" << choice.prompt << "\" (at most " << options.max_new_tokens
    << (options.max_new_tokens == 1 ? " token, " : " tokens, ");
  if (!options.sampling) s << "the model's sampling";
  else if (options.sampling->greedy) s << "greedy";
  else s << "temperature " << options.sampling->temperature << ", top-p " << options.sampling->top_p;
  if (options.seed && options.sampling && !options.sampling->greedy) s << ", seed " << *options.seed;
  if (choice.preset.style == CaptionStyle::kJson) s << ", JSON";
  s << ")";
  return s.str();
}

}  // namespace glance::cli
