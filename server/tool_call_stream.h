#pragma once
// Tool calls in OpenAI's chat-completions shapes (issue 29): the message's tool_calls array,
// the streamed deltas (one per call with its index, id, type and name, then its arguments in
// pieces), the call ids, and the hold-back that keeps a call's text out of the streamed content.
//
// Streaming: the answer's text is sent as content up to where a tool call may start
// ("<tool_c...", core/text/tool_call_parser.h's MayStartToolCall) and without trailing
// whitespace; that text is held back until the answer ends. Then either its calls are well
// formed (the held text is dropped and the calls are sent as tool_calls deltas) or not (the
// held text is sent as content, as the non-streamed answer returns it).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/text/chat_template.h"

namespace glance::server {

class ToolCallHoldback {
 public:
  // The part of the answer so far (with `piece` appended) that is safe to send as content now.
  std::string Push(const std::string& piece);
  // The text held back; the hold-back is empty afterwards.
  std::string Flush();

 private:
  std::string held_;
  bool in_call_ = false;  // "<tool_call>" was seen: everything from there is held
};

// "call_" and 24 random letters and digits.
std::string NewToolCallId();

// A message's tool_calls: [{id, type: "function", function: {name, arguments}}].
nlohmann::json ToolCallsJson(const std::vector<ToolCall>& calls, const std::vector<std::string>& ids);

// `arguments` cut into pieces of at most `piece_bytes` bytes (at least 4), never inside a UTF-8
// character.
std::vector<std::string> ArgumentPieces(const std::string& arguments, size_t piece_bytes = 16);

// The streamed deltas of `calls`, in order: {"tool_calls": [{index, id, type, function: {name,
// arguments: ""}}]} for each call, then {"tool_calls": [{index, function: {arguments: PIECE}}]}
// for each piece of its arguments (at most `piece_bytes` bytes, never splitting a UTF-8
// character).
std::vector<nlohmann::json> ToolCallDeltas(const std::vector<ToolCall>& calls, const std::vector<std::string>& ids,
                                           size_t piece_bytes = 16);

}  // namespace glance::server
