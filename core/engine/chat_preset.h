#pragma once
// Chat presets (issue 34): a named recipe for the desktop app's chat — the system prompt, the
// sampling (temperature, top-p, top-k, a fixed seed or a fresh one each answer), the answer's
// length, thinking on or off where the model has it, and the image mode (fast or detail) for the
// images attached while it is chosen. The app applies the chosen preset to
// the next message and keeps its name with the conversation. Not a caption preset
// (caption_preset.h: a question and a style for captioning folders); the two share their file
// frame and field readers (preset_json.h).
//
// The format, for export, import and the app's settings:
//   {"glance_chat_presets": 1,
//    "presets": [{"name": "Creative", "system_prompt": "You are a storyteller.",
//                 "temperature": 1.0, "top_p": 0.95, "top_k": 40, "seed": 7,
//                 "max_tokens": 1024, "thinking": false, "stop": ["\n\nUser:"],
//                 "image_mode": "detail"}]}
// temperature 0 is greedy decoding (top_p, top_k and seed then unused); top_k 0 is off; no
// "seed": a fresh one each answer; no "thinking": the model's default; no "stop" (or []): the
// app's own (Settings) stop sequences, else these replace them; no "image_mode": the app's own
// (Settings) image mode (core/engine/stop_scanner.h
// limits: 16, each 1..256 bytes). Every reading error is one line naming the file, the preset
// and the field.
//
// Thread contract: plain values and pure functions; no shared state.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/engine_options.h"  // ImageMode
#include "core/engine/session.h"         // GenerateOptions

namespace glance {

struct ChatPreset {
  std::string name;
  std::string system_prompt;     // "" = the app's own (Settings) system prompt
  float temperature = 0.7f;      // 0: greedy
  float top_p = 0.9f;            // 0 < top_p <= 1
  int top_k = 0;                 // 0 = off
  std::optional<uint64_t> seed;  // unset: a fresh seed each answer
  int max_tokens = 512;          // 1..kMaxChatPresetTokens
  std::optional<bool> thinking;  // unset: the model's default
  std::vector<std::string> stop;  // empty: the app's own (Settings) stop sequences
  std::optional<ImageMode> image_mode;  // unset: the app's own (Settings) image mode

  bool operator==(const ChatPreset&) const = default;
};

constexpr int kMaxChatPresetTokens = 32768;
constexpr int kMaxChatPresetTopK = 1000;

// "Precise" (greedy), "Creative" (sampling) and "Caption for training" (factual, greedy).
const std::vector<ChatPreset>& BuiltInChatPresets();
bool IsBuiltInChatPresetName(const std::string& name);

// `options` with the preset's length, sampling, seed, thinking and (when it has any) stop
// sequences; the rest left as they are.
void ApplyChatPreset(const ChatPreset& preset, GenerateOptions& options);

// Checks every field; throws glance::Error "<where>: field 'F' ..." naming the field.
void ValidateChatPreset(const ChatPreset& preset, const std::string& where);

// The format above. Parse throws glance::Error naming `source`, the preset and the field; two
// presets with one name, or a built-in's name, are refused.
std::vector<ChatPreset> ParseChatPresets(const std::string& json_text, const std::string& source);
std::string ChatPresetsJson(const std::vector<ChatPreset>& presets);

}  // namespace glance
