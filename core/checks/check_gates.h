#pragma once
// The tokenizer and chat-template measurements shared by the f32 and NPU checks (their gates
// are rows of gate_table.cpp).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/checks/gate_table.h"
#include "core/text/chat_template.h"

namespace glance {
class Tokenizer;
}  // namespace glance

namespace glance::checks {

// Hugging Face chat messages (the JSON form apply_chat_template takes, or OpenAI's: tool calls
// under "function", arguments as an object or a JSON string) as ChatMessages. The ordered
// overload keeps a tool call's arguments in their written order, as Python's dicts do.
std::vector<ChatMessage> MessagesFromJson(const nlohmann::json& messages);
std::vector<ChatMessage> MessagesFromJson(const nlohmann::ordered_json& messages);

// The gates "tokenizer" and "chat template": kMismatches of kCount cases, or Skipped when the
// folder has no such cases.
Measurement MeasureTokenizer(const std::string& dir, const Tokenizer& tok);
Measurement MeasureTemplate(const std::string& dir, const Tokenizer& tok, const ChatTemplate& tmpl,
                            int32_t image_pad_id);

}  // namespace glance::checks
