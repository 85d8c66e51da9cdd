#pragma once
// The Responses API's wire format (OpenAI's API reference, "Responses" and "Streaming
// responses"): the response object and the server-sent events of a streamed one, in their
// standard order: response.created, response.in_progress, response.output_item.added,
// response.content_part.added, response.output_text.delta..., response.output_text.done,
// response.content_part.done, response.output_item.done, then per function call
// response.output_item.added, response.function_call_arguments.delta...,
// response.function_call_arguments.done, response.output_item.done; response.completed.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "server/chat_service.h"
#include "server/responses_request.h"

namespace glance::server {

struct ResponseObjectIds {
  std::string id;       // "resp_..."
  std::string item_id;  // "msg_..."
  int64_t created = 0;
  std::string model;
};

// The response object; `c` null while in progress (status "in_progress", no output yet).
nlohmann::ordered_json ResponseObject(const ResponseObjectIds& ids, const ResponsesRequest& r, const Completion* c);
// A function call of the answer as an output item ("in_progress" with empty arguments while
// streaming, "completed" with them), and its id "fc_...".
nlohmann::ordered_json FunctionCallItem(const ResponseObjectIds& ids, const Completion& c, size_t i, const std::string& status);
std::string FunctionCallItemId(const ResponseObjectIds& ids, size_t i);
// Whether the output has a message item: it does unless the answer is only calls.
bool HasMessageItem(const Completion& c);
// The output message item ("in_progress" with no content when `text` is null).
nlohmann::ordered_json OutputMessage(const ResponseObjectIds& ids, const std::string* text, const std::string& status);
// "event: TYPE\ndata: {...}\n\n", with the running sequence number set.
std::string ResponseEvent(nlohmann::ordered_json event, int& sequence);

}  // namespace glance::server
