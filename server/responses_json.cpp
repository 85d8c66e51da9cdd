#include "server/responses_json.h"

namespace glance::server {

using ojson = nlohmann::ordered_json;

namespace {

ojson ToolChoiceJson(const ChatRequest& chat) {
  switch (chat.tool_choice) {
    case ChatRequest::ToolChoice::kNone: return "none";
    case ChatRequest::ToolChoice::kRequired: return "required";
    case ChatRequest::ToolChoice::kFunction: return {{"type", "function"}, {"name", chat.tool_choice_name}};
    case ChatRequest::ToolChoice::kAuto: break;
  }
  return chat.tools.empty() ? "none" : "auto";
}

}  // namespace

ojson OutputMessage(const ResponseObjectIds& ids, const std::string* text, const std::string& status) {
  ojson content = ojson::array();
  if (text) content.push_back({{"type", "output_text"}, {"text", *text}, {"annotations", ojson::array()}});
  return {{"type", "message"}, {"id", ids.item_id}, {"status", status}, {"role", "assistant"}, {"content", content}};
}

std::string FunctionCallItemId(const ResponseObjectIds& ids, size_t i) {
  return "fc_" + ids.item_id.substr(ids.item_id.find('_') + 1) + "_" + std::to_string(i);
}

ojson FunctionCallItem(const ResponseObjectIds& ids, const Completion& c, size_t i, const std::string& status) {
  return {{"type", "function_call"},
          {"id", FunctionCallItemId(ids, i)},
          {"call_id", c.tool_call_ids.at(i)},
          {"name", c.tool_calls.at(i).name},
          {"arguments", status == "completed" ? c.tool_calls.at(i).arguments : ""},
          {"status", status}};
}

bool HasMessageItem(const Completion& c) { return c.tool_calls.empty() || !c.text.empty(); }

ojson ResponseObject(const ResponseObjectIds& ids, const ResponsesRequest& r, const Completion* c) {
  // "length" (max_output_tokens or the context) is OpenAI's incomplete/max_output_tokens.
  const bool incomplete = c && c->finish_reason == "length";
  const std::string status = !c ? "in_progress" : incomplete ? "incomplete" : "completed";
  ojson out = ojson::array();
  // The answer's text (none when it is only calls), then a function_call item per call.
  if (c && HasMessageItem(*c)) out.push_back(OutputMessage(ids, &c->text, incomplete ? "incomplete" : "completed"));
  if (c)
    for (size_t i = 0; i < c->tool_calls.size(); ++i) out.push_back(FunctionCallItem(ids, *c, i, "completed"));
  ojson usage = nullptr;
  if (c)
    usage = {{"input_tokens", c->prompt_tokens},
             {"input_tokens_details", {{"cached_tokens", c->reused_tokens}}},
             {"output_tokens", c->completion_tokens},
             {"output_tokens_details", {{"reasoning_tokens", 0}}},
             {"total_tokens", c->prompt_tokens + c->completion_tokens}};
  const ChatRequest& chat = r.chat;
  return {{"id", ids.id},
          {"object", "response"},
          {"created_at", ids.created},
          {"status", status},
          {"error", nullptr},
          {"incomplete_details", incomplete ? ojson{{"reason", "max_output_tokens"}} : ojson(nullptr)},
          {"instructions", r.instructions ? ojson(*r.instructions) : ojson(nullptr)},
          {"max_output_tokens", r.max_output_tokens ? ojson(*r.max_output_tokens) : ojson(nullptr)},
          {"model", ids.model},
          {"output", out},
          {"parallel_tool_calls", chat.parallel_tool_calls},
          {"previous_response_id", r.previous_response_id.empty() ? ojson(nullptr) : ojson(r.previous_response_id)},
          {"store", true},
          {"temperature", chat.temperature ? ojson(*chat.temperature) : ojson(nullptr)},
          {"text", {{"format", r.text_format}}},
          {"tool_choice", ToolChoiceJson(chat)},
          {"tools", r.tools},
          {"top_p", chat.top_p ? ojson(*chat.top_p) : ojson(nullptr)},
          {"truncation", "disabled"},
          {"usage", usage},
          {"metadata", ojson::object()}};
}

std::string ResponseEvent(ojson event, int& sequence) {
  event["sequence_number"] = sequence++;
  const std::string type = event["type"].get<std::string>();
  return "event: " + type + "\ndata: " + event.dump(-1, ' ', false, ojson::error_handler_t::replace) + "\n\n";
}

}  // namespace glance::server
