#include "core/engine/chat_preset.h"

#include <algorithm>
#include <cmath>

#include "core/engine/preset_json.h"
#include "core/engine/sampler.h"
#include "core/engine/stop_scanner.h"
#include "core/util/error.h"

namespace glance {
namespace {

using preset_json::FieldError;
using preset_json::Json;
using preset_json::Num;
using preset_json::NumberField;
using preset_json::Shown;
using preset_json::StringField;

constexpr const char* kFormatKey = "glance_chat_presets";

float FloatOf(double v) { return static_cast<float>(std::clamp(v, -1e9, 1e9)); }

int WholeField(const Json& p, const char* key, int fallback, int lo, int hi, const std::string& where) {
  const double v = NumberField(p, key, fallback, where);
  if (v != std::floor(v) || v < lo || v > hi)
    FieldError(where, key, "must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) +
                               " (found " + Shown(p[key]) + ")");
  return static_cast<int>(v);
}

ChatPreset PresetFromJson(const Json& p, const std::string& where) {
  if (!p.is_object()) throw Error(where + ": is not a JSON object (found " + Shown(p) + ")");
  preset_json::RefuseUnknownFields(
      p, {"name", "system_prompt", "temperature", "top_p", "top_k", "seed", "max_tokens", "thinking", "stop",
          "image_mode"},
      where);
  ChatPreset preset;
  preset.name = StringField(p, "name", where, true);
  preset.system_prompt = StringField(p, "system_prompt", where, false);
  preset.temperature = FloatOf(NumberField(p, "temperature", preset.temperature, where));
  preset.top_p = FloatOf(NumberField(p, "top_p", preset.top_p, where));
  preset.top_k = WholeField(p, "top_k", preset.top_k, 0, kMaxChatPresetTopK, where);
  if (p.contains("seed") && !p["seed"].is_null()) {
    if (!p["seed"].is_number_unsigned()) FieldError(where, "seed", "must be a whole number >= 0 (found " + Shown(p["seed"]) + ")");
    preset.seed = p["seed"].get<uint64_t>();
  }
  preset.max_tokens = WholeField(p, "max_tokens", preset.max_tokens, 1, kMaxChatPresetTokens, where);
  if (p.contains("thinking") && !p["thinking"].is_null()) {
    if (!p["thinking"].is_boolean()) FieldError(where, "thinking", "must be true or false (found " + Shown(p["thinking"]) + ")");
    preset.thinking = p["thinking"].get<bool>();
  }
  if (p.contains("stop") && !p["stop"].is_null()) {
    const Json& stop = p["stop"];
    if (!stop.is_array()) FieldError(where, "stop", "must be a list of strings (found " + Shown(stop) + ")");
    for (const Json& s : stop) {
      if (!s.is_string()) FieldError(where, "stop", "must be a list of strings (found " + Shown(s) + " in it)");
      preset.stop.push_back(s.get<std::string>());
    }
  }
  if (p.contains("image_mode") && !p["image_mode"].is_null()) {
    const Json& mode = p["image_mode"];
    const std::optional<ImageMode> parsed = mode.is_string() ? ParseImageMode(mode.get<std::string>()) : std::nullopt;
    if (!parsed) FieldError(where, "image_mode", "must be one of " + ImageModeNames() + " (found " + Shown(mode) + ")");
    preset.image_mode = parsed;
  }
  ValidateChatPreset(preset, where);
  return preset;
}

Json PresetToJson(const ChatPreset& preset) {
  Json p;
  p["name"] = preset.name;
  p["system_prompt"] = preset.system_prompt;
  p["temperature"] = preset.temperature;
  p["top_p"] = preset.top_p;
  p["top_k"] = preset.top_k;
  if (preset.seed) p["seed"] = *preset.seed;
  p["max_tokens"] = preset.max_tokens;
  if (preset.thinking) p["thinking"] = *preset.thinking;
  if (!preset.stop.empty()) p["stop"] = preset.stop;
  if (preset.image_mode) p["image_mode"] = std::string(Name(*preset.image_mode));
  return p;
}

ChatPreset Make(const char* name, const char* system, float temperature, float top_p, int top_k, int max_tokens) {
  ChatPreset p;
  p.name = name;
  p.system_prompt = system;
  p.temperature = temperature;
  p.top_p = top_p;
  p.top_k = top_k;
  p.max_tokens = max_tokens;
  return p;
}

}  // namespace

const std::vector<ChatPreset>& BuiltInChatPresets() {
  static const std::vector<ChatPreset> presets = {
      Make("Precise", "Answer accurately and concisely. Say so when you are not sure.", 0.0f, 1.0f, 0, 512),
      Make("Creative", "", 1.0f, 0.95f, 40, 1024),
      Make("Caption for training",
           "Describe images factually for a training caption: the subject, then its attributes and the setting, "
           "in plain words, without opinions.",
           0.0f, 1.0f, 0, 200),
  };
  return presets;
}

bool IsBuiltInChatPresetName(const std::string& name) {
  for (const ChatPreset& p : BuiltInChatPresets())
    if (p.name == name) return true;
  return false;
}

void ApplyChatPreset(const ChatPreset& preset, GenerateOptions& options) {
  options.max_new_tokens = preset.max_tokens;
  SamplingParams sampling = options.sampling.value_or(SamplingParams::Greedy());
  sampling.greedy = preset.temperature <= 0.0f;
  if (!sampling.greedy) {
    sampling.temperature = preset.temperature;
    sampling.top_p = preset.top_p;
    sampling.top_k = preset.top_k;
  }
  options.sampling = sampling;
  options.seed = preset.seed;
  options.enable_thinking = preset.thinking;
  if (!preset.stop.empty()) options.stop = preset.stop;
}

void ValidateChatPreset(const ChatPreset& preset, const std::string& where) {
  if (preset.name.find_first_not_of(" \t\r\n") == std::string::npos) FieldError(where, "name", "is empty");
  if (!(preset.temperature >= 0.0f && preset.temperature <= 2.0f))
    FieldError(where, "temperature", "must be from 0 (greedy) to 2 (found " + Num(preset.temperature) + ")");
  if (!(preset.top_p > 0.0f && preset.top_p <= 1.0f))
    FieldError(where, "top_p", "must be above 0 and at most 1 (found " + Num(preset.top_p) + ")");
  if (preset.top_k < 0 || preset.top_k > kMaxChatPresetTopK)
    FieldError(where, "top_k", "must be from 0 (off) to " + std::to_string(kMaxChatPresetTopK) + " (found " +
                                   std::to_string(preset.top_k) + ")");
  if (preset.max_tokens < 1 || preset.max_tokens > kMaxChatPresetTokens)
    FieldError(where, "max_tokens", "must be a whole number from 1 to " + std::to_string(kMaxChatPresetTokens) +
                                        " (found " + std::to_string(preset.max_tokens) + ")");
  try {
    ValidateStopSequences(preset.stop);
  } catch (const Error& e) {
    FieldError(where, "stop", e.what());
  }
}

std::vector<ChatPreset> ParseChatPresets(const std::string& json_text, const std::string& source) {
  const Json list = preset_json::PresetList(json_text, source, kFormatKey, "chat presets");
  std::vector<ChatPreset> presets;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = preset_json::Where(source, i, list[i]);
    ChatPreset p = PresetFromJson(list[i], where);
    if (IsBuiltInChatPresetName(p.name))
      FieldError(where, "name", "'" + p.name + "' is a built-in preset's name; choose another");
    for (const ChatPreset& q : presets)
      if (q.name == p.name) FieldError(where, "name", "'" + p.name + "' is given to two presets");
    presets.push_back(std::move(p));
  }
  return presets;
}

std::string ChatPresetsJson(const std::vector<ChatPreset>& presets) {
  std::vector<Json> items;
  for (const ChatPreset& p : presets) items.push_back(PresetToJson(p));
  return preset_json::PresetFile(kFormatKey, items);
}

}  // namespace glance
