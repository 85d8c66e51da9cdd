#pragma once
// The tool-call fields of a chat-completions request (issue 29): `tools` (function tools with
// JSON-Schema parameters), `tool_choice`, `parallel_tool_calls`, and an assistant message's
// `tool_calls`. Everything a client can get wrong is a 400 naming the field, e.g.
// "tools[1].function.name" or "tool_choice.function.name".
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text/chat_template.h"
#include "server/chat_request.h"

namespace glance::server {

// Reads tools, tool_choice and parallel_tool_calls of `body` (`ordered`: the same body parsed
// keeping key order, so each tool is rendered as the client wrote it) into `r`. Throws ApiError.
void ParseToolFields(const nlohmann::json& body, const nlohmann::ordered_json& ordered, ChatRequest& r);

// An assistant message's tool_calls ([{id, type: "function", function: {name, arguments}}]),
// each call's arguments kept as the JSON object's text. `where` is "messages[i]". Throws ApiError.
std::vector<ToolCall> ParseMessageToolCalls(const nlohmann::json& calls, const std::string& where);

}  // namespace glance::server
