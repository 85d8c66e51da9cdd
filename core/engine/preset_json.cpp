#include "core/engine/preset_json.h"

#include <sstream>

#include "core/util/error.h"

namespace glance::preset_json {

constexpr int kFormatVersion = 1;

std::string Shown(const Json& v) {
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 60) + "..." : s;
}

std::string Num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string Where(const std::string& source, size_t index, const Json& p) {
  std::string w = source + ": preset " + std::to_string(index + 1);
  if (p.is_object() && p.contains("name") && p["name"].is_string()) w += " ('" + p["name"].get<std::string>() + "')";
  return w;
}

void FieldError(const std::string& where, const char* key, const std::string& what) {
  throw Error(where + ": field '" + key + "' " + what);
}

double NumberField(const Json& p, const char* key, double fallback, const std::string& where) {
  if (!p.contains(key) || p[key].is_null()) return fallback;
  if (!p[key].is_number()) FieldError(where, key, "must be a number (found " + Shown(p[key]) + ")");
  return p[key].get<double>();
}

std::string StringField(const Json& p, const char* key, const std::string& where, bool required) {
  if (!p.contains(key) || p[key].is_null()) {
    if (required) FieldError(where, key, "is missing");
    return {};
  }
  if (!p[key].is_string()) FieldError(where, key, "must be a string (found " + Shown(p[key]) + ")");
  return p[key].get<std::string>();
}

void RefuseUnknownFields(const Json& p, const std::vector<std::string>& known, const std::string& where) {
  for (auto it = p.begin(); it != p.end(); ++it) {
    bool found = false;
    for (const std::string& k : known) found = found || k == it.key();
    if (found) continue;
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    throw Error(where + ": unknown field '" + it.key() + "' (a preset has " + list + ")");
  }
}

Json PresetList(const std::string& json_text, const std::string& source, const char* format_key, const char* what) {
  Json doc;
  try {
    doc = Json::parse(json_text);
  } catch (const Json::exception& e) {
    throw Error(source + " is not valid JSON: " + e.what());
  }
  if (!doc.is_object() || !doc.contains(format_key))
    throw Error(source + ": not a " + what + " file (no \"" + std::string(format_key) + "\" field)");
  if (doc[format_key] != kFormatVersion)
    throw Error(source + ": field '" + format_key + "' is " + Shown(doc[format_key]) + "; this Glance reads version " +
                std::to_string(kFormatVersion));
  if (!doc.contains("presets") || !doc["presets"].is_array())
    throw Error(source + ": field 'presets' must be a list of presets");
  return doc["presets"];
}

std::string PresetFile(const char* format_key, const std::vector<Json>& presets) {
  Json doc;
  doc[format_key] = kFormatVersion;
  doc["presets"] = Json::array();
  for (const Json& p : presets) doc["presets"].push_back(p);
  return doc.dump(2) + "\n";
}

}  // namespace glance::preset_json
