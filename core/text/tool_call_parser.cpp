#include "core/text/tool_call_parser.h"

#include <map>
#include <optional>

#include <nlohmann/json.hpp>

namespace glance {
namespace {

using nlohmann::ordered_json;

constexpr const char* kOpen = "<tool_call>";
constexpr const char* kClose = "</tool_call>";

std::string TrimSpace(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

// name -> (parameter -> JSON-Schema type, "" when untyped)
using ToolTypes = std::map<std::string, std::map<std::string, std::string>>;

ToolTypes ReadTools(const std::vector<std::string>& tools) {
  ToolTypes out;
  for (const std::string& text : tools) {
    const ordered_json t = ordered_json::parse(text, nullptr, false);
    if (t.is_discarded() || !t.is_object()) continue;
    const ordered_json& f = t.contains("function") ? t["function"] : t;
    if (!f.is_object() || !f.contains("name") || !f["name"].is_string()) continue;
    auto& params = out[f["name"].get<std::string>()];
    if (f.contains("parameters") && f["parameters"].is_object() && f["parameters"].contains("properties") &&
        f["parameters"]["properties"].is_object())
      for (auto it = f["parameters"]["properties"].begin(); it != f["parameters"]["properties"].end(); ++it)
        params[it.key()] = it.value().is_object() && it.value().contains("type") && it.value()["type"].is_string()
                               ? it.value()["type"].get<std::string>()
                               : "";
  }
  return out;
}

// The value of a parameter as its type says; nullopt when it is not that.
std::optional<ordered_json> TypedValue(const std::string& raw, const std::string& type) {
  if (type == "string") return ordered_json(raw);
  // The template writes a boolean or null argument with Python's str(): True, False, None.
  if (type == "boolean" && (raw == "True" || raw == "False")) return ordered_json(raw == "True");
  if (type == "null" && raw == "None") return ordered_json(nullptr);
  const ordered_json v = ordered_json::parse(raw, nullptr, false);
  if (v.is_discarded()) {
    if (type.empty()) return ordered_json(raw);  // untyped: text stays text
    return std::nullopt;
  }
  if (type.empty()) return v;
  const bool fits = (type == "integer" && v.is_number_integer()) || (type == "number" && v.is_number()) ||
                    (type == "boolean" && v.is_boolean()) || (type == "object" && v.is_object()) ||
                    (type == "array" && v.is_array()) || (type == "null" && v.is_null());
  return fits ? std::optional<ordered_json>(v) : std::nullopt;
}

// One block's inside: "\n<function=NAME>\n<parameter=K>\nV\n</parameter>\n...</function>\n".
bool ParseBlock(const std::string& block, const ToolTypes& tools, ToolCall& call, std::string& problem) {
  const std::string body = TrimSpace(block);
  const std::string fopen = "<function=";
  if (body.compare(0, fopen.size(), fopen) != 0 || body.size() < 11 ||
      body.compare(body.size() - 11, 11, "</function>") != 0) {
    problem = "a <tool_call> block is not one <function=...>...</function>";
    return false;
  }
  const size_t name_end = body.find('>');
  call.name = body.substr(fopen.size(), name_end - fopen.size());
  const auto tool = tools.find(call.name);
  if (tool == tools.end()) {
    problem = "the answer calls '" + call.name + "', which is not one of the request's tools";
    return false;
  }
  ordered_json args = ordered_json::object();
  size_t at = name_end + 1;
  const size_t end = body.size() - 11;
  for (;;) {
    const size_t p = body.find("<parameter=", at);
    if (p == std::string::npos || p >= end) break;
    if (!TrimSpace(body.substr(at, p - at)).empty()) {
      problem = "text between the parameters of '" + call.name + "'";
      return false;
    }
    const size_t key_end = body.find('>', p);
    const size_t close = body.find("</parameter>", key_end);
    if (key_end == std::string::npos || close == std::string::npos || close > end) {
      problem = "a parameter of '" + call.name + "' does not close";
      return false;
    }
    const std::string key = body.substr(p + 11, key_end - p - 11);
    std::string raw = body.substr(key_end + 1, close - key_end - 1);
    // The template writes "\n" + value + "\n" around each value.
    if (!raw.empty() && raw.front() == '\n') raw.erase(0, 1);
    if (!raw.empty() && raw.back() == '\n') raw.pop_back();
    const auto type = tool->second.find(key);
    const std::optional<ordered_json> v = TypedValue(raw, type == tool->second.end() ? "" : type->second);
    if (!v) {
      problem = "parameter '" + key + "' of '" + call.name + "' is not a " + type->second;
      return false;
    }
    args[key] = *v;
    at = close + 12;
  }
  if (!TrimSpace(body.substr(at, end - at)).empty()) {
    problem = "text after the parameters of '" + call.name + "'";
    return false;
  }
  call.arguments = args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return true;
}

}  // namespace

ParsedToolCalls ParseToolCalls(const std::string& answer, const std::vector<std::string>& tools) {
  ParsedToolCalls r;
  r.content = answer;
  const size_t first = answer.find(kOpen);
  if (first == std::string::npos || tools.empty()) return r;
  const ToolTypes types = ReadTools(tools);
  std::vector<ToolCall> calls;
  size_t at = first;
  while (at < answer.size()) {
    if (answer.compare(at, std::char_traits<char>::length(kOpen), kOpen) != 0) {
      r.problem = "text after a tool call";  // the template: reasoning only BEFORE the call
      return r;
    }
    const size_t close = answer.find(kClose, at);
    if (close == std::string::npos) {
      r.problem = "a <tool_call> block does not close";
      return r;
    }
    ToolCall call;
    const size_t inner = at + std::char_traits<char>::length(kOpen);
    if (!ParseBlock(answer.substr(inner, close - inner), types, call, r.problem)) return r;
    calls.push_back(std::move(call));
    at = close + std::char_traits<char>::length(kClose);
    while (at < answer.size() && (answer[at] == '\n' || answer[at] == ' ' || answer[at] == '\r' || answer[at] == '\t')) ++at;
  }
  r.ok = true;
  r.calls = std::move(calls);
  r.content = TrimSpace(answer.substr(0, first));
  return r;
}

bool MayStartToolCall(const std::string& text) {
  const std::string open = kOpen;
  for (size_t n = 1; n <= std::min(open.size(), text.size()); ++n)
    if (text.compare(text.size() - n, n, open, 0, n) == 0) return true;
  return text.find(open) != std::string::npos;
}

}  // namespace glance
