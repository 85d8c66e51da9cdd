#pragma once
// POST /v1/chat/completions: the OpenAI request body, parsed and checked against the server's
// limits before anything runs. Everything a client can get wrong ends as ApiError (400/413)
// naming the field, e.g. "messages[2].content[1].image_url".
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/engine/engine_options.h"
#include "core/engine/sampler.h"
#include "core/engine/session.h"
#include "core/text/chat_template.h"
#include "server/server_options.h"

namespace glance::server {

struct RequestImage {
  std::vector<uint8_t> bytes;  // encoded (PNG, JPEG, ...)
  std::string sha256;          // of `bytes`: identifies the image when a conversation continues
  std::string param;           // where it was in the request, for error messages
  ImageMode mode = ImageMode::kFast;  // image_url.detail, else glance.image_mode
};

struct RequestMessage {
  std::string role;  // "system" | "user" | "assistant" | "tool"
  std::string text;  // its text parts concatenated with no separator, as the chat template does
  std::vector<RequestImage> images;  // user messages only, in order
  // The message in order: text parts and image parts (indices into `images`), as the client
  // sent them; the prompt is rendered in this order.
  std::vector<MessagePart> parts;
  std::vector<ToolCall> tool_calls{};  // assistant: its function calls (arguments as sent)
  std::string tool_call_id{};          // tool: the call it answers (not rendered)
};

struct ChatRequest {
  std::string model;
  // Validated: [system] then user first; an assistant after a user or tool message; tool
  // messages after an assistant message with tool_calls (or another tool message); ending with
  // a user or tool message.
  std::vector<RequestMessage> messages;
  int max_tokens = 256;                  // when the request names none, capped by ServerLimits::max_tokens
  bool stream = false;
  bool include_usage = false;            // stream_options.include_usage
  std::optional<float> temperature;      // 0 = greedy
  std::optional<float> top_p;
  std::optional<int> top_k;
  std::optional<float> presence_penalty;
  std::optional<uint64_t> seed;
  std::vector<std::string> stop;         // up to 4, as OpenAI
  std::optional<bool> enable_thinking;   // chat_template_kwargs.enable_thinking
  bool attention = false;                // glance.attention: per-word maps in the response
  ImageMode image_mode = ImageMode::kFast;  // glance.image_mode: "fast" or "detail"
  // response_format: plain text, any JSON object, or a JSON schema's documents (constrained
  // decoding, core/engine/json_constraint.h).
  enum class Format { kText, kJsonObject, kJsonSchema };
  Format format = Format::kText;
  std::string json_schema;  // kJsonSchema: the schema's JSON text, properties in the order sent
  int top_logprobs = -1;    // logprobs: -1 none; else each token's and this many alternatives (0..20)
  // tools: each function tool's JSON text as sent (key order kept: the template renders it so).
  std::vector<std::string> tools;
  // tool_choice: auto parses calls; none renders the tools but leaves the answer text; required
  // and a named function constrain the answer to calls (of `tool_choice_name` only).
  enum class ToolChoice { kAuto, kNone, kRequired, kFunction };
  ToolChoice tool_choice = ToolChoice::kAuto;
  std::string tool_choice_name;     // kFunction
  bool parallel_tool_calls = true;  // false: one call at most
  // glance.forced_answer: the answer is this text (teacher forcing), not a sampled one.
  std::optional<std::string> forced_answer;

  // The sampling this request asks for: greedy when temperature is 0, else the given fields
  // over the defaults of SamplingParams; nullopt when it names none (the model's own defaults).
  std::optional<SamplingParams> Sampling() const;
};

// Throws ApiError. `body` is the raw request body. Every field is checked against the table of
// server/request_fields.h: a refused or unknown field is a 400 naming it.
ChatRequest ParseChatRequest(const std::string& body, const ServerLimits& limits);

}  // namespace glance::server
