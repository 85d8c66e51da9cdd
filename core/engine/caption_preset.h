#pragma once
// Caption presets (issue 33): a named recipe for captioning a folder — the caption's style (the
// question the model is asked), how long it may be, extra instructions with {placeholders} the
// user fills per run ("refer to the person as {name}"), and the sampling. `glance-cli caption DIR
// --preset NAME` and the folder view's caption dialog both turn a preset into the question and
// the generation options here, so one preset asks the same thing in both.
//
// Where presets come from: the built-ins (BuiltInCaptionPresets), the user's saved presets in
// DefaultCaptionPresetsPath() (written by the desktop app, read by glance-cli too), and any file
// given with --preset-file or imported in the app. The file format, the same for all three:
//   {"glance_caption_presets": 1,
//    "presets": [{"name": "portrait", "style": "detailed", "max_tokens": 120,
//                 "instructions": "Refer to the person as {name}.",
//                 "temperature": 0.7, "top_p": 0.9, "seed": 7}]}
// style is short | detailed | tags | json; "schema" (a JSON schema object) only with json, which
// constrains the answer to a JSON document (json_constraint.h; any JSON object without a schema).
// temperature 0 (the default) is greedy decoding; top_p and seed only matter when sampling.
// Every reading error is one line naming the file, the preset and the field.
//
// Thread contract: plain values and pure functions; no shared state.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/engine/session.h"  // GenerateOptions

namespace glance {

enum class CaptionStyle { kShort, kDetailed, kTags, kJson };

// "short", "detailed", "tags", "json".
const char* CaptionStyleName(CaptionStyle style);
// The style a name means; throws glance::Error listing the styles for an unknown one.
CaptionStyle ParseCaptionStyle(const std::string& name);

struct CaptionPreset {
  std::string name;
  CaptionStyle style = CaptionStyle::kShort;
  int max_tokens = 60;       // the answer's length limit in tokens (1..kMaxCaptionTokens)
  std::string instructions;  // appended to the style's question; {placeholders} filled per run
  std::string schema;        // json style only: a JSON schema's text ("" = any JSON object)
  float temperature = 0.0f;  // 0: greedy (the same image gives the same caption)
  float top_p = 1.0f;        // when sampling: the nucleus (0 < top_p <= 1)
  std::optional<uint64_t> seed;  // when sampling: fixed for reproducible captions; unset: fresh

  bool operator==(const CaptionPreset&) const = default;
};

constexpr int kMaxCaptionTokens = 8192;

// The question each style asks, before the instructions (the one place it is written).
std::string CaptionStyleQuestion(CaptionStyle style);

// short (one sentence), detailed (a paragraph), tags (comma-separated), json (a JSON object).
const std::vector<CaptionPreset>& BuiltInCaptionPresets();
bool IsBuiltInCaptionPresetName(const std::string& name);

// The {placeholder} names the instructions use, in order of first use. `{{` and `}}` are a
// literal brace; a brace around anything but a name (letters, digits, _) is literal text.
std::vector<std::string> CaptionPresetPlaceholders(const CaptionPreset& preset);

// The question the preset asks: the style's question, then the instructions with each
// {placeholder} replaced by vars[name]. Throws glance::Error naming the preset and the
// placeholder when a placeholder has no value, or a variable no placeholder uses (a typo).
std::string CaptionPresetPrompt(const CaptionPreset& preset, const std::map<std::string, std::string>& vars);

// `options` with the preset's length and sampling (greedy when temperature is 0).
void ApplyCaptionPreset(const CaptionPreset& preset, GenerateOptions& options);

// Checks every field (name not empty, max_tokens in range, sampling in range, schema only
// with json and a JSON object); throws glance::Error "<where>: field 'F' ..." naming the field.
void ValidateCaptionPreset(const CaptionPreset& preset, const std::string& where);

// The file format above. Read: throws glance::Error naming `source` (the file), the preset (by
// number and name) and the field; two presets with one name, or a name of a built-in, are
// refused. ReadCaptionPresetsFile: a missing file is an empty list.
std::vector<CaptionPreset> ParseCaptionPresets(const std::string& json_text, const std::string& source);
std::string CaptionPresetsJson(const std::vector<CaptionPreset>& presets);
std::vector<CaptionPreset> ReadCaptionPresetsFile(const std::string& path);
// Written whole (atomic_write.h): a crash leaves the old file or the new one.
void WriteCaptionPresetsFile(const std::string& path, const std::vector<CaptionPreset>& presets);

// $XDG_CONFIG_HOME/Glance/presets.json, else $HOME/.config/Glance/presets.json ("" when neither
// is set): where the desktop app keeps the presets saved in it.
std::string DefaultCaptionPresetsPath();

// The preset called `name`: the built-ins, then `saved` (in order). Throws glance::Error
// "unknown preset 'x'; known: short, detailed, ..." otherwise.
CaptionPreset FindCaptionPreset(const std::string& name, const std::vector<CaptionPreset>& saved);

}  // namespace glance
