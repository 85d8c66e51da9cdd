#include "server/responses_request.h"

#include <set>

#include "server/api_error.h"

namespace glance::server {

using ojson = nlohmann::ordered_json;

void ResponseStore::Put(const std::string& id, ojson messages) {
  const size_t bytes = messages.dump(-1, ' ', false, ojson::error_handler_t::replace).size();
  std::lock_guard<std::mutex> lock(mu_);
  held_.push_front({id, std::move(messages), bytes});
  bytes_ += bytes;
  while (held_.size() > max_held_ || (bytes_ > max_bytes_ && held_.size() > 1)) {
    bytes_ -= held_.back().bytes;
    held_.pop_back();
  }
}

std::optional<ojson> ResponseStore::Get(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = held_.begin(); it != held_.end(); ++it)
    if (it->id == id) {
      held_.splice(held_.begin(), held_, it);
      return held_.front().messages;
    }
  return std::nullopt;
}

namespace {

std::string At(const std::string& base, size_t i) { return base + "[" + std::to_string(i) + "]"; }

// A function_call item -> the call in an assistant message's tool_calls.
ojson ToolCallOf(const ojson& item, const std::string& where) {
  for (const auto& [k, v] : item.items())
    if (k != "type" && k != "id" && k != "call_id" && k != "name" && k != "arguments" && k != "status")
      throw BadRequest(where + "." + k + " is not a known function_call field", where + "." + k);
  for (const char* k : {"call_id", "name", "arguments"})
    if (!item.contains(k) || !item[k].is_string())
      throw BadRequest(where + "." + k + " must be a string", where + "." + k);
  return {{"id", item["call_id"]}, {"type", "function"},
          {"function", {{"name", item["name"]}, {"arguments", item["arguments"]}}}};
}

// A function_call_output item -> a tool message.
ojson ToolResultOf(const ojson& item, const std::string& where) {
  for (const auto& [k, v] : item.items())
    if (k != "type" && k != "id" && k != "call_id" && k != "output" && k != "status")
      throw BadRequest(where + "." + k + " is not a known function_call_output field", where + "." + k);
  if (!item.contains("call_id") || !item["call_id"].is_string())
    throw BadRequest(where + ".call_id must be a string", where + ".call_id");
  if (!item.contains("output") || !item["output"].is_string())
    throw BadRequest(where + ".output must be a string", where + ".output");
  return {{"role", "tool"}, {"tool_call_id", item["call_id"]}, {"content", item["output"]}};
}

// One input item -> one chat-completions message (the Responses part types mapped to
// chat-completions ones: input_text/output_text -> text, input_image -> image_url).
ojson ChatMessageOf(const ojson& item, const std::string& where) {
  if (!item.is_object()) throw BadRequest(where + " must be a message object", where);
  if (item.contains("type") && item["type"] != "message")
    throw BadRequest(where + ".type " + item["type"].dump() + " is not supported (message, function_call, function_call_output)", where + ".type");
  for (const auto& [k, v] : item.items())
    if (k != "type" && k != "role" && k != "content" && k != "id" && k != "status")
      throw BadRequest(where + "." + k + " is not a known message field", where + "." + k);
  if (!item.contains("role") || !item["role"].is_string()) throw BadRequest(where + ".role is missing", where + ".role");
  ojson msg = {{"role", item["role"]}};
  const ojson& content = item.contains("content") ? item["content"] : ojson();
  if (content.is_string()) {
    msg["content"] = content;
    return msg;
  }
  if (!content.is_array()) throw BadRequest(where + ".content must be a string or an array of parts", where + ".content");
  ojson parts = ojson::array();
  for (size_t k = 0; k < content.size(); ++k) {
    const ojson& p = content[k];
    const std::string pw = At(where + ".content", k);
    const std::string type = p.is_object() && p.contains("type") && p["type"].is_string() ? p["type"].get<std::string>() : "";
    if (type == "input_text" || type == "output_text") {
      if (!p.contains("text") || !p["text"].is_string()) throw BadRequest(pw + ".text must be a string", pw + ".text");
      parts.push_back({{"type", "text"}, {"text", p["text"]}});
    } else if (type == "input_image") {
      if (!p.contains("image_url") || !p["image_url"].is_string())
        throw BadRequest(pw + ".image_url must be a data: URL (file_id is not supported)", pw + ".image_url");
      ojson url = {{"url", p["image_url"]}};
      if (p.contains("detail") && !p["detail"].is_null()) url["detail"] = p["detail"];
      parts.push_back({{"type", "image_url"}, {"image_url", url}});
    } else {
      throw BadRequest(pw + ".type must be input_text, input_image or output_text", pw + ".type");
    }
  }
  msg["content"] = parts;
  return msg;
}

bool IsNoOp(const ojson& v) {
  return v.is_null() || (v.is_boolean() && !v.get<bool>()) || ((v.is_array() || v.is_object()) && v.empty());
}

}  // namespace

ResponsesRequest ParseResponsesRequest(const std::string& body, const ServerLimits& limits, ResponseStore& store) {
  ojson j = ojson::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw BadRequest("the request body is not valid JSON");
  if (!j.is_object()) throw BadRequest("the request body must be a JSON object");
  static const std::set<std::string> honoured = {"model", "input", "instructions", "max_output_tokens", "temperature",
                                                 "top_p", "stream", "text", "previous_response_id", "tools",
                                                 "tool_choice", "parallel_tool_calls", "glance"};
  static const std::set<std::string> ignored = {"store", "metadata", "user", "service_tier",
                                                "safety_identifier", "prompt_cache_key"};
  for (const auto& [k, v] : j.items()) {
    if (honoured.count(k) || ignored.count(k)) continue;
    if (k == "truncation" && (v == "disabled" || v.is_null())) continue;
    if ((k == "include" || k == "reasoning" || k == "background" || k == "top_logprobs") && IsNoOp(v)) continue;
    if (k == "include" || k == "reasoning" || k == "background" || k == "top_logprobs" || k == "truncation")
      throw BadRequest(k + " is not supported by this server's /v1/responses; the request was not run", k);
    throw BadRequest(k + " is not a known responses field; nothing was run", k);
  }
  ResponsesRequest r;
  ojson messages = ojson::array();
  if (j.contains("previous_response_id") && !j["previous_response_id"].is_null()) {
    if (!j["previous_response_id"].is_string()) throw BadRequest("previous_response_id must be a string", "previous_response_id");
    r.previous_response_id = j["previous_response_id"].get<std::string>();
    const auto held = store.Get(r.previous_response_id);
    if (!held)
      throw ApiError(404, "not_found", "previous_response_id '" + r.previous_response_id +
                     "' is not held by this server (it keeps the last " + std::to_string(ResponseStore::kMaxHeld) +
                     " responses up to 256 MiB, and none across a restart); send the whole conversation as input instead",
                     "previous_response_id");
    messages = *held;
  }
  if (!j.contains("input")) throw BadRequest("input is missing", "input");
  const ojson& input = j["input"];
  if (input.is_string()) {
    messages.push_back({{"role", "user"}, {"content", input}});
  } else if (input.is_array() && !input.empty()) {
    for (size_t i = 0; i < input.size(); ++i) {
      const std::string type = input[i].is_object() ? input[i].value("type", "message") : "message";
      if (type == "function_call") {
        // Calls join the assistant message before them (its text), or make one.
        ojson call = ToolCallOf(input[i], At("input", i));
        if (messages.empty() || messages.back()["role"] != "assistant")
          messages.push_back({{"role", "assistant"}, {"content", nullptr}});
        if (!messages.back().contains("tool_calls")) messages.back()["tool_calls"] = ojson::array();
        messages.back()["tool_calls"].push_back(std::move(call));
        continue;
      }
      if (type == "function_call_output") {
        const ojson* before = messages.empty() ? nullptr : &messages.back();
        if (!before || !((*before)["role"] == "tool" || ((*before)["role"] == "assistant" && before->contains("tool_calls"))))
          throw BadRequest(At("input", i) + ": a function_call_output follows the function_call it answers", At("input", i));
        messages.push_back(ToolResultOf(input[i], At("input", i)));
        continue;
      }
      ojson m = ChatMessageOf(input[i], At("input", i));
      if (m["role"] == "system" || m["role"] == "developer") {
        if (i != 0 || !r.previous_response_id.empty())
          throw BadRequest(At("input", i) + ": a system message only as the first input item (or use instructions)", At("input", i));
      }
      messages.push_back(std::move(m));
    }
  } else {
    throw BadRequest("input must be a string or a non-empty array of message items", "input");
  }
  ojson chat = {{"messages", ojson::array()}};
  if (j.contains("instructions") && !j["instructions"].is_null()) {
    if (!j["instructions"].is_string()) throw BadRequest("instructions must be a string", "instructions");
    r.instructions = j["instructions"].get<std::string>();
    if (!messages.empty() && (messages[0]["role"] == "system" || messages[0]["role"] == "developer"))
      throw BadRequest("instructions and a system input item together: send one", "instructions");
    chat["messages"].push_back({{"role", "system"}, {"content", *r.instructions}});
  }
  for (const ojson& m : messages) chat["messages"].push_back(m);
  if (j.contains("max_output_tokens") && !j["max_output_tokens"].is_null()) {
    chat["max_tokens"] = j["max_output_tokens"];
    if (j["max_output_tokens"].is_number_integer()) r.max_output_tokens = j["max_output_tokens"].get<int>();
  }
  for (const char* k : {"model", "temperature", "top_p", "stream", "tool_choice", "parallel_tool_calls", "glance"})
    if (j.contains(k) && !j[k].is_null()) chat[k] = j[k];
  // Function tools: {type, name, description, parameters, strict} -> chat's {type, function: {...}}.
  if (j.contains("tools") && !j["tools"].is_null()) {
    const ojson& tools = j["tools"];
    if (!tools.is_array()) throw BadRequest("tools must be an array", "tools");
    chat["tools"] = ojson::array();
    for (size_t i = 0; i < tools.size(); ++i) {
      const ojson& t = tools[i];
      if (!t.is_object() || !t.contains("type") || !t["type"].is_string())
        throw BadRequest(At("tools", i) + " must be an object with a type", At("tools", i));
      if (t["type"] != "function")
        throw BadRequest(At("tools", i) + ".type '" + t["type"].get<std::string>() + "' is not supported (function)", At("tools", i) + ".type");
      ojson f = ojson::object();
      for (const auto& [k, v] : t.items())
        if (k != "type") f[k] = v;
      chat["tools"].push_back({{"type", "function"}, {"function", f}});
    }
    r.tools = tools;
  }
  if (j.contains("text") && !j["text"].is_null()) {
    const ojson& t = j["text"];
    if (!t.is_object()) throw BadRequest("text must be an object", "text");
    for (const auto& [k, v] : t.items())
      if (k != "format" && !(k == "verbosity" && (v.is_null() || v == "medium")))
        throw BadRequest("text." + k + " is not supported (format)", "text." + k);
    if (t.contains("format") && !t["format"].is_null()) {
      const ojson& f = t["format"];
      if (!f.is_object() || !f.contains("type") || !f["type"].is_string())
        throw BadRequest("text.format must be an object with a type (text, json_object, json_schema)", "text.format");
      r.text_format = f;
      if (f["type"] == "json_schema") {
        ojson js = ojson::object();
        for (const auto& [k, v] : f.items()) {
          if (k == "type") continue;
          if (k != "name" && k != "schema" && k != "strict" && k != "description")
            throw BadRequest("text.format." + k + " is not a known field (name, description, schema, strict)", "text.format." + k);
          js[k] = v;
        }
        chat["response_format"] = {{"type", "json_schema"}, {"json_schema", js}};
      } else {
        chat["response_format"] = f;
      }
    }
  }
  try {
    r.chat = ParseChatRequest(chat.dump(), limits);
  } catch (const ApiError& e) {
    // The chat request's field names, said as this request's.
    std::string param = e.param(), message = e.what();
    auto rename = [](std::string& s, const std::string& from, const std::string& to) {
      for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    };
    for (std::string* s : {&param, &message}) {
      rename(*s, "response_format.json_schema", "text.format");
      rename(*s, "response_format", "text.format");
      rename(*s, "max_tokens", "max_output_tokens");
      for (size_t i = 0; i < r.tools.size(); ++i)  // tools[i].function.x is this request's tools[i].x
        rename(*s, At("tools", i) + ".function", At("tools", i));
    }
    throw ApiError(e.status(), e.type(), message, param);
  }
  // Kept for the next previous_response_id: the conversation without a system message (the
  // next request's instructions, if any, take its place, as OpenAI's do).
  if (!messages.empty() && (messages[0]["role"] == "system" || messages[0]["role"] == "developer"))
    messages.erase(messages.begin());
  r.messages = std::move(messages);
  return r;
}

}  // namespace glance::server
