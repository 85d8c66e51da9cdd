#pragma once
// One way to read a JSON file, and one way to read a typed field of a JSON object, with errors that name where the object came
// from (a file, or "image JSON"), the field and what was wrong. Numbers are strict: `true` is not
// a number here, although nlohmann's get<float>() would read it as 1.
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>

#include "core/util/error.h"

namespace glance {

// The JSON document in the file `path`. Throws glance::Error(cannot_open) when the file cannot
// be opened, and "<path> is not valid JSON: ..." when it does not parse.
nlohmann::json ReadJsonFile(const std::string& path, const std::string& cannot_open);

// Present and not null (Hugging Face writes `null` for an unset optional field).
inline bool HasField(const nlohmann::json& obj, const char* key) {
  return obj.is_object() && obj.contains(key) && !obj.at(key).is_null();
}

namespace json_field_detail {

// At most this much of a wrong value goes into the message (a field may hold a whole array).
constexpr size_t kShownChars = 60;

[[noreturn]] inline void WrongType(const nlohmann::json& v, const char* key, const std::string& where) {
  std::string shown = v.dump();
  if (shown.size() > kShownChars) shown = shown.substr(0, kShownChars) + "...";
  throw Error(where + ": field '" + key + "' has the wrong type (found " + shown + ")");
}

template <typename T>
T Get(const nlohmann::json& v, const char* key, const std::string& where) {
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    if (!v.is_number()) WrongType(v, key, where);
  }
  try {
    return v.get<T>();
  } catch (const nlohmann::json::exception&) {
    WrongType(v, key, where);
  }
}

}  // namespace json_field_detail

// obj[key] as T. Throws glance::Error "<where>: field 'key' is missing" (absent or null) or
// "<where>: field 'key' has the wrong type (found ...)".
template <typename T>
T RequiredField(const nlohmann::json& obj, const char* key, const std::string& where) {
  if (!HasField(obj, key)) throw Error(where + ": field '" + key + "' is missing");
  return json_field_detail::Get<T>(obj.at(key), key, where);
}

// obj[key] as T, or `fallback` when the field is absent or null. Throws glance::Error on the
// wrong type, as RequiredField does.
template <typename T>
T OptionalField(const nlohmann::json& obj, const char* key, T fallback, const std::string& where) {
  if (!HasField(obj, key)) return fallback;
  return json_field_detail::Get<T>(obj.at(key), key, where);
}

}  // namespace glance
