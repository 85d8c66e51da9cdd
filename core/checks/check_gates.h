#pragma once
// The individual gates of the reference check (reference_check.h), one function each.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/checks/reference_check.h"
#include "core/text/chat_template.h"

namespace glance {

class Tokenizer;

// Hugging Face chat messages (the JSON form apply_chat_template takes) as ChatMessages.
// Throws glance::Error on tool calls (not supported).
std::vector<ChatMessage> MessagesFromJson(const nlohmann::json& messages);

GateResult TokenizerGate(const std::string& dir, const Tokenizer& tok);
GateResult TemplateGate(const std::string& dir, const Tokenizer& tok, const ChatTemplate& tmpl,
                        int32_t image_pad_id);

}  // namespace glance
