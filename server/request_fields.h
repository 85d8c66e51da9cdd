#pragma once
// Every field of OpenAI's chat-completions request, and every content-part type, with what
// this server does with it: honoured, refused (HTTP 400 naming the field), or ignored by
// design (with the reason). One table, read by the request parser (chat_request.cpp) and
// listed in the README's server section; a field the table does not know is refused as
// unknown, as OpenAI's own API refuses it, so nothing a client asks for is silently dropped.
// Source of the field list: OpenAI's API reference, "Create chat completion" (2025).
#include <span>
#include <string>

namespace glance::server {

enum class FieldUse {
  kHonoured,  // read and acted on
  kRefused,   // 400 when present with a value other than its no-op default
  kIgnored,   // accepted and has no effect, for the reason given
};

struct RequestField {
  const char* name;
  FieldUse use;
  // kRefused: why, as the 400 says it; kIgnored: why it has no effect here; kHonoured: how.
  const char* note;
};

// The top-level fields of POST /v1/chat/completions.
std::span<const RequestField> ChatRequestFields();
// The content-part types of a message's content array.
std::span<const RequestField> ContentPartTypes();
// The fields of one message object.
std::span<const RequestField> MessageFields();

// The entry for `name` in `table`, or nullptr.
const RequestField* FindField(std::span<const RequestField> table, const std::string& name);

}  // namespace glance::server
