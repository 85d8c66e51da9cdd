#pragma once
// What the preset files of Glance share (caption presets, core/engine/caption_preset.h; chat
// presets, core/engine/chat_preset.h): the file's frame {"<format_key>": 1, "presets": [...]},
// and the field readers whose errors are one line naming the file, the preset (by number and
// name) and the field ("f.json: preset 2 ('x'): field 'top_p' must be a number (found "a")").
//
// Thread contract: pure functions; no shared state.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace glance::preset_json {

// Ordered: a document's fields keep the order the file wrote them in.
using Json = nlohmann::ordered_json;

// `v` as JSON text, cut at 60 characters.
std::string Shown(const Json& v);
// 0.7, not 0.700000.
std::string Num(double v);
// "<source>: preset N ('name')".
std::string Where(const std::string& source, size_t index, const Json& p);

[[noreturn]] void FieldError(const std::string& where, const char* key, const std::string& what);
// Absent or null: fallback. Not a number: FieldError.
double NumberField(const Json& p, const char* key, double fallback, const std::string& where);
// Absent or null: "" (or FieldError "is missing" when required). Not a string: FieldError.
std::string StringField(const Json& p, const char* key, const std::string& where, bool required);
// Throws "<where>: unknown field 'k' (a preset has <list>)" for a key not in `known`.
void RefuseUnknownFields(const Json& p, const std::vector<std::string>& known, const std::string& where);

// The "presets" list of a presets file: valid JSON, an object with `format_key` equal to 1 and
// a list called "presets"; else glance::Error naming `source` ("... not a <what> file").
Json PresetList(const std::string& json_text, const std::string& source, const char* format_key, const char* what);
// The file's text for `presets` (each already a JSON object).
std::string PresetFile(const char* format_key, const std::vector<Json>& presets);

}  // namespace glance::preset_json
