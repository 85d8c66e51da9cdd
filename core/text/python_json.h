#pragma once
// JSON written as Python writes it, for the chat template's filters: transformers renders the
// template with jinja2, whose `tojson` is json.dumps(x, ensure_ascii=False) (separators ", " and
// ": ", members in their given order) and whose `string` filter is Python's str().
#include <string>

#include <nlohmann/json.hpp>

namespace glance {

// json.dumps(value, ensure_ascii=False).
std::string PythonJsonDumps(const nlohmann::ordered_json& value);

// str(value) of the value json.loads gives: "True"/"False", "None", numbers as repr, strings
// as they are; objects and arrays as json.dumps (the template never calls str() on those).
std::string PythonStr(const nlohmann::ordered_json& value);

}  // namespace glance
