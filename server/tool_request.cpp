#include "server/tool_request.h"

#include <cctype>
#include <set>

#include "core/text/tool_call_automaton.h"
#include "core/util/error.h"
#include "server/api_error.h"

namespace glance::server {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

std::string At(const std::string& base, size_t i) { return base + "[" + std::to_string(i) + "]"; }

// OpenAI's rule for function names: a-z, A-Z, 0-9, underscores and dashes, at most 64. It also
// keeps a name from breaking the call format (<function=NAME>).
bool GoodName(const std::string& n) {
  if (n.empty() || n.size() > 64) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

std::string FunctionName(const json& tool, const std::string& where) {
  if (!tool.is_object() || !tool.contains("type") || !tool["type"].is_string())
    throw BadRequest(where + " must be an object with a type", where);
  if (tool["type"] != "function")
    throw BadRequest(where + ".type '" + tool["type"].get<std::string>() + "' is not supported (function)", where + ".type");
  for (const auto& [k, v] : tool.items())
    if (k != "type" && k != "function") throw BadRequest(where + "." + k + " is not a known tool field", where + "." + k);
  const std::string fw = where + ".function";
  if (!tool.contains("function") || !tool["function"].is_object()) throw BadRequest(fw + " must be an object", fw);
  const json& f = tool["function"];
  for (const auto& [k, v] : f.items())
    if (k != "name" && k != "description" && k != "parameters" && k != "strict")
      throw BadRequest(fw + "." + k + " is not a known field (name, description, parameters, strict)", fw + "." + k);
  if (!f.contains("name") || !f["name"].is_string()) throw BadRequest(fw + ".name is missing", fw + ".name");
  const std::string name = f["name"].get<std::string>();
  if (!GoodName(name))
    throw BadRequest(fw + ".name '" + name + "' must be 1 to 64 letters, digits, underscores or dashes", fw + ".name");
  if (f.contains("parameters") && !f["parameters"].is_object() && !f["parameters"].is_null())
    throw BadRequest(fw + ".parameters must be a JSON Schema object", fw + ".parameters");
  if (f.contains("description") && !f["description"].is_string() && !f["description"].is_null())
    throw BadRequest(fw + ".description must be a string", fw + ".description");
  return name;
}

}  // namespace

void ParseToolFields(const json& j, const ordered_json& ordered, ChatRequest& r) {
  std::set<std::string> names;
  if (j.contains("tools") && !j["tools"].is_null()) {
    if (!j["tools"].is_array()) throw BadRequest("tools must be an array", "tools");
    for (size_t i = 0; i < j["tools"].size(); ++i) {
      const std::string name = FunctionName(j["tools"][i], At("tools", i));
      if (!names.insert(name).second)
        throw BadRequest(At("tools", i) + ".function.name '" + name + "' is used by two tools", At("tools", i) + ".function.name");
      r.tools.push_back(ordered["tools"][i].dump(-1, ' ', false, json::error_handler_t::replace));
    }
  }
  if (j.contains("parallel_tool_calls") && !j["parallel_tool_calls"].is_null()) {
    if (!j["parallel_tool_calls"].is_boolean()) throw BadRequest("parallel_tool_calls must be true or false", "parallel_tool_calls");
    r.parallel_tool_calls = j["parallel_tool_calls"].get<bool>();
  }
  if (!j.contains("tool_choice") || j["tool_choice"].is_null()) return;
  const json& c = j["tool_choice"];
  if (c.is_string()) {
    const std::string s = c.get<std::string>();
    if (s == "auto") r.tool_choice = ChatRequest::ToolChoice::kAuto;
    else if (s == "none") r.tool_choice = ChatRequest::ToolChoice::kNone;
    else if (s == "required") r.tool_choice = ChatRequest::ToolChoice::kRequired;
    else throw BadRequest("tool_choice '" + s + "' is not supported (auto, none, required, or a named function)", "tool_choice");
  } else if (c.is_object()) {
    if (c.value("type", "") != "function")
      throw BadRequest("tool_choice.type must be function", "tool_choice.type");
    // Chat completions name it in tool_choice.function.name (the Responses API in tool_choice.name).
    const bool nested = c.contains("function");
    const json* name = nested ? (c["function"].is_object() && c["function"].contains("name") ? &c["function"]["name"] : nullptr)
                              : (c.contains("name") ? &c["name"] : nullptr);
    const std::string param = nested ? "tool_choice.function.name" : "tool_choice.name";
    if (!name || !name->is_string()) throw BadRequest(param + " is missing", param);
    r.tool_choice = ChatRequest::ToolChoice::kFunction;
    r.tool_choice_name = name->get<std::string>();
    if (!names.count(r.tool_choice_name))
      throw BadRequest(param + " '" + r.tool_choice_name + "' is not one of the request's tools", param);
  } else {
    throw BadRequest("tool_choice must be auto, none, required or {\"type\": \"function\", ...}", "tool_choice");
  }
  if (r.tool_choice == ChatRequest::ToolChoice::kRequired && r.tools.empty())
    throw BadRequest("tool_choice required needs tools", "tool_choice");
  // A constrained choice: each parameter's schema must be one the call format can enforce.
  if (r.tool_choice == ChatRequest::ToolChoice::kRequired || r.tool_choice == ChatRequest::ToolChoice::kFunction) {
    try {
      text::ToolCallAutomaton(r.tools, r.tool_choice == ChatRequest::ToolChoice::kFunction ? r.tool_choice_name : "", 1);
    } catch (const Error& e) {
      const std::string what = e.what();
      // The message starts with the place: "tools[i].function.parameters...: ...".
      throw BadRequest(what, what.substr(0, what.find(':')).find(' ') == std::string::npos ? what.substr(0, what.find(':')) : "tools");
    }
  }
}

std::vector<ToolCall> ParseMessageToolCalls(const json& calls, const std::string& where) {
  const std::string base = where + ".tool_calls";
  if (!calls.is_array()) throw BadRequest(base + " must be an array", base);
  std::vector<ToolCall> out;
  for (size_t k = 0; k < calls.size(); ++k) {
    const std::string cw = At(base, k);
    const json& c = calls[k];
    if (!c.is_object()) throw BadRequest(cw + " must be an object", cw);
    if (c.contains("type") && c["type"] != "function")
      throw BadRequest(cw + ".type must be function", cw + ".type");
    if (!c.contains("function") || !c["function"].is_object()) throw BadRequest(cw + ".function must be an object", cw + ".function");
    const json& f = c["function"];
    if (!f.contains("name") || !f["name"].is_string() || f["name"].get<std::string>().empty())
      throw BadRequest(cw + ".function.name is missing", cw + ".function.name");
    ToolCall call;
    call.name = f["name"].get<std::string>();
    if (!GoodName(call.name))
      throw BadRequest(cw + ".function.name '" + call.name + "' must be letters, digits, underscores or dashes", cw + ".function.name");
    const std::string aw = cw + ".function.arguments";
    if (!f.contains("arguments") || f["arguments"].is_null()) {
      call.arguments = "{}";
    } else if (f["arguments"].is_string()) {
      call.arguments = f["arguments"].get<std::string>();
      const ordered_json args = ordered_json::parse(call.arguments.empty() ? "{}" : call.arguments, nullptr, false);
      if (args.is_discarded() || !args.is_object()) throw BadRequest(aw + " must be a JSON object's text", aw);
    } else {
      throw BadRequest(aw + " must be a string (a JSON object's text)", aw);
    }
    out.push_back(std::move(call));
  }
  return out;
}

}  // namespace glance::server
