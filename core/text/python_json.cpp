#include "core/text/python_json.h"

namespace glance {

std::string PythonJsonDumps(const nlohmann::ordered_json& value) {
  if (value.is_object()) {
    std::string out = "{";
    bool first = true;
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (!first) out += ", ";
      first = false;
      out += nlohmann::ordered_json(it.key()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      out += ": " + PythonJsonDumps(it.value());
    }
    return out + "}";
  }
  if (value.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < value.size(); ++i) out += (i ? ", " : "") + PythonJsonDumps(value[i]);
    return out + "]";
  }
  // Scalars: strings escaped as json.dumps escapes them (control characters, quote, backslash;
  // non-ASCII kept), numbers shortest round-trip with ".0" on whole floats, as Python's repr.
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string PythonStr(const nlohmann::ordered_json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "True" : "False";
  if (value.is_null()) return "None";
  return PythonJsonDumps(value);
}

}  // namespace glance
