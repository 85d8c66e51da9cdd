#pragma once
// The one settings registry shared by the GUI (QSettings store, generated settings dialog) and
// glance-cli (flag names): every user-facing option with its type, default, allowed range,
// help text and CLI flag. Values travel as strings (the QSettings / command-line form) and are
// validated here, so the GUI and the CLI accept and reject exactly the same things.
// (Pattern: Flameshot ConfigHandler / qView SettingsManager; see docs/style.md.)
//
// No Qt. Thread contract: the table is immutable after first use; all functions are pure.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine/engine_options.h"
#include "core/engine/sampler.h"
#include "core/engine/session.h"

namespace glance::settings {

enum class Type { kBool, kInt, kDouble, kString, kEnum };

// How a front end should present a string value.
enum class Presentation { kPlain, kMultiline, kDirectory };

struct Key {
  std::string name;           // QSettings key, e.g. "temperature"
  Type type = Type::kString;
  std::string default_value;  // canonical string form; always passes Validate()
  int64_t int_min = 0, int_max = 0;      // kInt: inclusive range
  double double_min = 0, double_max = 0; // kDouble: inclusive range
  std::vector<std::string> choices;      // kEnum: allowed values, in display order
  std::string label;          // short label for forms: "Top-p"
  std::string help;           // one or two sentences, for tooltips and --help
  std::string cli_flag;       // glance-cli flag without "--"; empty = GUI only
  std::string group;          // "Model", "Generation", "Sampling", "Chat", "Image"
  Presentation presentation = Presentation::kPlain;
  // kString: what is wrong with a value (one line, without the key's name), or nullopt; unset =
  // any string.
  std::function<std::optional<std::string>(std::string_view)> check;
};

// Every key, in display order.
const std::vector<Key>& Registry();
// nullptr when unknown.
const Key* FindKey(std::string_view name);
const Key* FindKeyByFlag(std::string_view cli_flag);

// Why `value` is not acceptable for `key` ("temperature: '9' is out of range 0.01..5"), or
// nullopt when it is. Booleans accept true/false/1/0/on/off/yes/no.
std::optional<std::string> ValidationError(const Key& key, std::string_view value);
// Throws glance::Error with ValidationError's message (or "unknown setting 'x'").
void Validate(std::string_view key, std::string_view value);
// The canonical form of a valid value ("on" -> "true", "0.50" -> "0.5"); throws like Validate.
std::string Canonical(std::string_view key, std::string_view value);

// key -> value. Missing keys read as their default.
using Values = std::map<std::string, std::string>;
Values Defaults();

// Typed reads. Throw glance::Error when the key is unknown, of another type, or its value is
// invalid (callers are expected to hand in validated values).
bool GetBool(const Values& values, std::string_view key);
int64_t GetInt(const Values& values, std::string_view key);
double GetDouble(const Values& values, std::string_view key);
std::string GetString(const Values& values, std::string_view key);  // kString and kEnum

// Sets one value from a command-line flag ("--top-p 0.9"): validates, canonicalises, stores.
// Throws glance::Error naming the flag when it is unknown or the value is invalid.
void ApplyFlag(Values& values, std::string_view cli_flag, std::string_view value);

// The "sampling" key's values: the checkpoint's generation_config.json, greedy, or the
// temperature/top-k/... keys ("custom").
inline constexpr const char* kSamplingModel = "model";
inline constexpr const char* kSamplingGreedy = "greedy";
inline constexpr const char* kSamplingCustom = "custom";
// The "seed" key's value for "a fresh seed every turn".
inline constexpr int64_t kFreshSeed = -1;

// Builders from values (missing keys = defaults); the typed options are parsed here, once.
// SamplingParams are checked with SamplingParams::Validate() by the engine, not here.
// ToSamplingParams: the "custom" sampling keys (always sampled, never greedy).
SamplingParams ToSamplingParams(const Values& values);
GenerateOptions ToGenerateOptions(const Values& values);
EngineOptions ToEngineOptions(const Values& values);
ImageMode ToImageMode(const Values& values);
// The "stop_sequences" key's list (core/engine/stop_scanner.h ParseStopLines).
std::vector<std::string> ToStopSequences(const Values& values);
// The "context_length" key: the most tokens a chat may hold (Session::SetContextLimit clamps it
// to the model's own limit).
int ToContextLength(const Values& values);

}  // namespace glance::settings
