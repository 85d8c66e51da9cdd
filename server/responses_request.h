#pragma once
// POST /v1/responses (OpenAI's Responses API, issue 29): the request read and turned into the
// chat-completions request the rest of the server runs (chat_request.h), so limits, images,
// schemas and held conversations work the same. `previous_response_id` continues a response
// this server still holds (ResponseStore): its conversation comes first, then the new input.
//
// Honoured: model, input (a string, or message items whose content is a string or
// input_text / input_image (data URL) / output_text parts, function_call and
// function_call_output items), instructions, max_output_tokens, temperature, top_p, stream,
// text.format (text, json_object, json_schema), previous_response_id, tools (function tools),
// tool_choice, parallel_tool_calls, glance (the chat extension: forced_answer...).
// Ignored: store (every response is held for previous_response_id, the last kMaxHeld), metadata,
// user, service_tier, truncation "disabled". Refused with a 400 naming the field: reasoning,
// include, background, top_logprobs, truncation "auto", and anything unknown.
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
  nlohmann::ordered_json tools = nlohmann::ordered_json::array();  // echoed, as sent
  // The conversation after this response's input, chat-format messages without the system
  // message: what the next previous_response_id continues (the answer is added once known).
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
};

// The conversations of recent responses, by response id, least recently used dropped first:
// at most kMaxHeld of them and kMaxBytes of JSON together (images travel as data URLs in them).
// Thread-safe.
class ResponseStore {
 public:
  static constexpr size_t kMaxHeld = 64;
  static constexpr size_t kMaxBytes = size_t{256} << 20;
  explicit ResponseStore(size_t max_held = kMaxHeld, size_t max_bytes = kMaxBytes)
      : max_held_(max_held), max_bytes_(max_bytes) {}
  void Put(const std::string& id, nlohmann::ordered_json messages);
  std::optional<nlohmann::ordered_json> Get(const std::string& id);

 private:
  size_t max_held_, max_bytes_;
  std::mutex mu_;
  struct Held {
    std::string id;
    nlohmann::ordered_json messages;
    size_t bytes = 0;
  };
  std::list<Held> held_;  // most recent first
  size_t bytes_ = 0;
};

// Throws ApiError: 400 naming the field (input[i]..., text.format...), 404 for a
// previous_response_id the store does not hold.
ResponsesRequest ParseResponsesRequest(const std::string& body, const ServerLimits& limits, ResponseStore& store);

}  // namespace glance::server
