#include "core/engine/caption_preset.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "core/engine/preset_json.h"
#include "core/engine/sampler.h"
#include "core/text/json_grammar.h"
#include "core/util/atomic_write.h"
#include "core/util/error.h"
#include "core/util/read_file.h"

namespace glance {
namespace {

// Ordered: a schema's properties keep the order the file wrote them in (the answer's order).
using Json = preset_json::Json;

constexpr const char* kFormatKey = "glance_caption_presets";

struct StyleName {
  CaptionStyle style;
  const char* name;
};
constexpr StyleName kStyles[] = {{CaptionStyle::kShort, "short"},
                                 {CaptionStyle::kDetailed, "detailed"},
                                 {CaptionStyle::kTags, "tags"},
                                 {CaptionStyle::kJson, "json"}};

std::string StyleList() {
  std::string s;
  for (const StyleName& n : kStyles) s += (s.empty() ? "" : ", ") + std::string(n.name);
  return s;
}

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Walks the instructions: `literal` gets text, `placeholder` each {name}. `{{` / `}}` are braces.
template <class Literal, class Placeholder>
void WalkInstructions(const std::string& text, Literal literal, Placeholder placeholder) {
  for (size_t i = 0; i < text.size();) {
    if ((text[i] == '{' || text[i] == '}') && i + 1 < text.size() && text[i + 1] == text[i]) {
      literal(std::string(1, text[i]));
      i += 2;
      continue;
    }
    if (text[i] == '{') {
      size_t j = i + 1;
      while (j < text.size() && IsNameChar(text[j])) ++j;
      if (j > i + 1 && j < text.size() && text[j] == '}') {
        placeholder(text.substr(i + 1, j - i - 1));
        i = j + 1;
        continue;
      }
    }
    literal(std::string(1, text[i]));
    ++i;
  }
}

using preset_json::FieldError;
using preset_json::Num;
using preset_json::NumberField;
using preset_json::Shown;
using preset_json::StringField;

// A float field read as double: bounded first, as a double past a float's range does not convert.
float FloatOf(double v) { return static_cast<float>(std::clamp(v, -1e9, 1e9)); }

CaptionPreset PresetFromJson(const Json& p, const std::string& where) {
  if (!p.is_object()) throw Error(where + ": is not a JSON object (found " + Shown(p) + ")");
  preset_json::RefuseUnknownFields(
      p, {"name", "style", "max_tokens", "instructions", "schema", "temperature", "top_p", "seed"}, where);
  CaptionPreset preset;
  preset.name = StringField(p, "name", where, true);
  const std::string style = StringField(p, "style", where, true);
  try {
    preset.style = ParseCaptionStyle(style);
  } catch (const Error&) {
    FieldError(where, "style", "must be one of " + StyleList() + " (found " + Shown(p["style"]) + ")");
  }
  const double max_tokens = NumberField(p, "max_tokens", preset.max_tokens, where);
  if (max_tokens != std::floor(max_tokens) || max_tokens < 1 || max_tokens > kMaxCaptionTokens)
    FieldError(where, "max_tokens", "must be a whole number from 1 to " + std::to_string(kMaxCaptionTokens) +
                                        " (found " + Shown(p["max_tokens"]) + ")");
  preset.max_tokens = static_cast<int>(max_tokens);
  preset.instructions = StringField(p, "instructions", where, false);
  if (p.contains("schema") && !p["schema"].is_null()) {
    if (!p["schema"].is_object()) FieldError(where, "schema", "must be a JSON schema object (found " + Shown(p["schema"]) + ")");
    preset.schema = p["schema"].dump();
  }
  preset.temperature = FloatOf(NumberField(p, "temperature", preset.temperature, where));
  preset.top_p = FloatOf(NumberField(p, "top_p", preset.top_p, where));
  if (p.contains("seed") && !p["seed"].is_null()) {
    if (!p["seed"].is_number_unsigned()) FieldError(where, "seed", "must be a whole number >= 0 (found " + Shown(p["seed"]) + ")");
    preset.seed = p["seed"].get<uint64_t>();
  }
  ValidateCaptionPreset(preset, where);
  return preset;
}

Json PresetToJson(const CaptionPreset& preset) {
  Json p;
  p["name"] = preset.name;
  p["style"] = CaptionStyleName(preset.style);
  p["max_tokens"] = preset.max_tokens;
  if (!preset.instructions.empty()) p["instructions"] = preset.instructions;
  if (!preset.schema.empty()) p["schema"] = Json::parse(preset.schema);
  p["temperature"] = preset.temperature;
  if (preset.temperature > 0.0f) p["top_p"] = preset.top_p;
  if (preset.seed) p["seed"] = *preset.seed;
  return p;
}

}  // namespace

const char* CaptionStyleName(CaptionStyle style) {
  for (const StyleName& n : kStyles)
    if (n.style == style) return n.name;
  return "short";
}

CaptionStyle ParseCaptionStyle(const std::string& name) {
  for (const StyleName& n : kStyles)
    if (name == n.name) return n.style;
  throw Error("'" + name + "' is not a caption style; use one of " + StyleList());
}

std::string CaptionStyleQuestion(CaptionStyle style) {
  switch (style) {
    case CaptionStyle::kShort:
      return "Describe this image in one sentence.";
    case CaptionStyle::kDetailed:
      return "Describe this image in detail: the subject, the setting, the colours, the lighting and the composition.";
    case CaptionStyle::kTags:
      return "List tags for this image: short keywords separated by commas, the most important first. Answer with "
             "the tags only.";
    case CaptionStyle::kJson:
      return "Describe this image as a JSON object.";
  }
  return "Describe this image.";
}

const std::vector<CaptionPreset>& BuiltInCaptionPresets() {
  static const std::vector<CaptionPreset> presets = [] {
    std::vector<CaptionPreset> v(4);
    v[0].name = "short";
    v[0].style = CaptionStyle::kShort;
    v[0].max_tokens = 60;
    v[1].name = "detailed";
    v[1].style = CaptionStyle::kDetailed;
    v[1].max_tokens = 300;
    v[2].name = "tags";
    v[2].style = CaptionStyle::kTags;
    v[2].max_tokens = 80;
    v[3].name = "json";
    v[3].style = CaptionStyle::kJson;
    v[3].max_tokens = 300;
    return v;
  }();
  return presets;
}

bool IsBuiltInCaptionPresetName(const std::string& name) {
  for (const CaptionPreset& p : BuiltInCaptionPresets())
    if (p.name == name) return true;
  return false;
}

std::vector<std::string> CaptionPresetPlaceholders(const CaptionPreset& preset) {
  std::vector<std::string> names;
  WalkInstructions(
      preset.instructions, [](const std::string&) {},
      [&](const std::string& name) {
        for (const std::string& n : names)
          if (n == name) return;
        names.push_back(name);
      });
  return names;
}

std::string CaptionPresetPrompt(const CaptionPreset& preset, const std::map<std::string, std::string>& vars) {
  const std::vector<std::string> used = CaptionPresetPlaceholders(preset);
  for (const std::string& name : used)
    if (!vars.count(name))
      throw Error("preset '" + preset.name + "': no value for {" + name + "} in its instructions; give " + name +
                  "=VALUE");
  for (const auto& [name, value] : vars) {
    bool found = false;
    for (const std::string& u : used) found = found || u == name;
    if (!found) {
      std::string have;
      for (const std::string& u : used) have += (have.empty() ? "{" : ", {") + u + "}";
      throw Error("preset '" + preset.name + "' has no {" + name + "} in its instructions" +
                  (have.empty() ? std::string(" (it uses none)") : " (it uses " + have + ")"));
    }
  }
  std::string filled;
  WalkInstructions(
      preset.instructions, [&](const std::string& text) { filled += text; },
      [&](const std::string& name) { filled += vars.at(name); });
  std::string prompt = CaptionStyleQuestion(preset.style);
  const size_t begin = filled.find_first_not_of(" \t\r\n");
  if (begin != std::string::npos) prompt += " " + filled.substr(begin, filled.find_last_not_of(" \t\r\n") - begin + 1);
  return prompt;
}

void ApplyCaptionPreset(const CaptionPreset& preset, GenerateOptions& options) {
  options.max_new_tokens = preset.max_tokens;
  SamplingParams sampling = SamplingParams::Greedy();
  if (preset.temperature > 0.0f) {
    sampling.greedy = false;
    sampling.temperature = preset.temperature;
    sampling.top_p = preset.top_p;
  }
  options.sampling = sampling;
  options.seed = preset.seed;
}

void ValidateCaptionPreset(const CaptionPreset& preset, const std::string& where) {
  if (preset.name.find_first_not_of(" \t\r\n") == std::string::npos) FieldError(where, "name", "is empty");
  if (preset.max_tokens < 1 || preset.max_tokens > kMaxCaptionTokens)
    FieldError(where, "max_tokens", "must be a whole number from 1 to " + std::to_string(kMaxCaptionTokens) +
                                        " (found " + std::to_string(preset.max_tokens) + ")");
  if (!(preset.temperature >= 0.0f && preset.temperature <= 2.0f))
    FieldError(where, "temperature", "must be from 0 (greedy) to 2 (found " + Num(preset.temperature) + ")");
  if (!(preset.top_p > 0.0f && preset.top_p <= 1.0f))
    FieldError(where, "top_p", "must be above 0 and at most 1 (found " + Num(preset.top_p) + ")");
  if (!preset.schema.empty()) {
    if (preset.style != CaptionStyle::kJson)
      FieldError(where, "schema", std::string("is for style json (the style is ") + CaptionStyleName(preset.style) + ")");
    try {
      text::CompileJsonSchemaText(preset.schema, "schema");
    } catch (const Error& e) {
      FieldError(where, "schema", std::string("is not a schema Glance can follow: ") + e.what());
    }
  }
}

std::vector<CaptionPreset> ParseCaptionPresets(const std::string& json_text, const std::string& source) {
  const Json list = preset_json::PresetList(json_text, source, kFormatKey, "caption presets");
  std::vector<CaptionPreset> presets;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = preset_json::Where(source, i, list[i]);
    CaptionPreset p = PresetFromJson(list[i], where);
    if (IsBuiltInCaptionPresetName(p.name))
      FieldError(where, "name", "'" + p.name + "' is a built-in preset's name; choose another");
    for (const CaptionPreset& q : presets)
      if (q.name == p.name) FieldError(where, "name", "'" + p.name + "' is given to two presets");
    presets.push_back(std::move(p));
  }
  return presets;
}

std::string CaptionPresetsJson(const std::vector<CaptionPreset>& presets) {
  std::vector<Json> items;
  for (const CaptionPreset& p : presets) items.push_back(PresetToJson(p));
  return preset_json::PresetFile(kFormatKey, items);
}

std::vector<CaptionPreset> ReadCaptionPresetsFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  return ParseCaptionPresets(ReadWholeFile(path, path + ": cannot read the presets file"), path);
}

void WriteCaptionPresetsFile(const std::string& path, const std::vector<CaptionPreset>& presets) {
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);  // a failure shows in the write
  WriteFileAtomically(path, CaptionPresetsJson(presets));
}

std::string DefaultCaptionPresetsPath() {
  namespace fs = std::filesystem;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return (fs::path(x) / "Glance" / "presets.json").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".config" / "Glance" / "presets.json").string();
  return {};
}

CaptionPreset FindCaptionPreset(const std::string& name, const std::vector<CaptionPreset>& saved) {
  std::string known;
  for (const auto* list : {&BuiltInCaptionPresets(), &saved})
    for (const CaptionPreset& p : *list) {
      if (p.name == name) return p;
      known += (known.empty() ? "" : ", ") + p.name;
    }
  throw Error("unknown preset '" + name + "'; known: " + known);
}

}  // namespace glance
