#pragma once
// POST /v1/responses (OpenAI's Responses API, issue 29): the request read and turned into the
// chat-completions request the rest of the server runs (chat_request.h), so limits, images,
// schemas and held conversations work the same. `previous_response_id` continues a response
// this server still holds (ResponseStore): its conversation comes first, then the new input.
//
// Honoured: model, input (a string, or message items whose content is a string or
// input_text / input_image (data URL) / output_text parts), instructions, max_output_tokens,
// temperature, top_p, stream, text.format (text, json_object, json_schema), previous_response_id.
// Ignored: store (every response is held for previous_response_id, the last kMaxHeld), metadata,
// user, service_tier, parallel_tool_calls, truncation "disabled". Refused with a 400 naming the
// field: tools, tool_choice other than none/auto, reasoning, include, background, top_logprobs,
// truncation "auto", and anything unknown.
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "server/chat_request.h"

namespace glance::server {

struct ResponsesRequest {
  ChatRequest chat;                  // what runs
  std::string previous_response_id;  // empty: none
  std::optional<std::string> instructions;
  std::optional<int> max_output_tokens;
  nlohmann::ordered_json text_format = {{"type", "text"}};  // echoed in the response's text.format
  // The conversation after this response's input, chat-format messages without the system
  // message: what the next previous_response_id continues (the answer is added once known).
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
};

// The conversations of recent responses, by response id, least recently used dropped first.
// Thread-safe.
class ResponseStore {
 public:
  static constexpr size_t kMaxHeld = 64;
  void Put(const std::string& id, nlohmann::ordered_json messages);
  std::optional<nlohmann::ordered_json> Get(const std::string& id);

 private:
  std::mutex mu_;
  std::list<std::pair<std::string, nlohmann::ordered_json>> held_;  // most recent first
};

// Throws ApiError: 400 naming the field (input[i]..., text.format...), 404 for a
// previous_response_id the store does not hold.
ResponsesRequest ParseResponsesRequest(const std::string& body, const ServerLimits& limits, ResponseStore& store);

}  // namespace glance::server
