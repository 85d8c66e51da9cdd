#pragma once
// One way to read a JSON file, and one way to read a typed field of a JSON object, with errors that name where the object came
// from (a file, or "image JSON"), the field and what was wrong. Numbers are strict: `true` is not
// a number here, although nlohmann's get<float>() would read it as 1.
#include <cmath>
#include <cstdint>
#include <limits>
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

[[noreturn]] inline void OutOfRange(const nlohmann::json& v, const char* key, const std::string& where,
                                    const std::string& allowed) {
  std::string shown = v.dump();
  if (shown.size() > kShownChars) shown = shown.substr(0, kShownChars) + "...";
  throw Error(where + ": field '" + key + "' must be " + allowed + " (found " + shown + ")");
}

// A number that T cannot hold is an error, not a conversion: nlohmann's get<T>() casts, and a
// float past T's range converted to an integer (or a double past FLT_MAX to float) is
// undefined behaviour, while a wide integer narrowed silently changes its value.
template <typename T>
void CheckRepresentable(const nlohmann::json& v, const char* key, const std::string& where) {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_integral_v<T>) {
    const std::string allowed =
        "a whole number from " + std::to_string(L::min()) + " to " + std::to_string(L::max());
    if (v.is_number_float()) {
      const double d = v.get<double>();
      const double limit = std::ldexp(1.0, L::digits);  // 2^digits: the first value T cannot hold
      const double lowest = std::is_signed_v<T> ? -limit : 0.0;
      if (!(std::isfinite(d) && d == std::floor(d) && d >= lowest && d < limit)) OutOfRange(v, key, where, allowed);
    } else if (v.is_number_unsigned()) {
      if (v.get<uint64_t>() > static_cast<uint64_t>(L::max())) OutOfRange(v, key, where, allowed);
    } else {
      const int64_t i = v.get<int64_t>();
      if (i < 0 ? (!std::is_signed_v<T> || i < static_cast<int64_t>(L::min()))
                : static_cast<uint64_t>(i) > static_cast<uint64_t>(L::max()))
        OutOfRange(v, key, where, allowed);
    }
  } else if constexpr (std::is_same_v<T, float>) {
    const double d = v.get<double>();
    if (std::isfinite(d) && std::fabs(d) > static_cast<double>(L::max()))
      OutOfRange(v, key, where, "a number a float holds");
  }
}

template <typename T>
T Get(const nlohmann::json& v, const char* key, const std::string& where) {
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    if (!v.is_number()) WrongType(v, key, where);
    CheckRepresentable<T>(v, key, where);
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
