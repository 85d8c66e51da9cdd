#pragma once
// The individual gates of the reference check (reference_check.h), one function each.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/checks/reference_check.h"
#include "core/text/chat_template.h"

namespace glance {

class Tokenizer;

// A check's report as its gates are decided: each also goes to `on_gate` at once (glance-cli
// prints it while the next gate runs).
class GateLog {
 public:
  explicit GateLog(std::function<void(const GateResult&)> on_gate) : on_gate_(std::move(on_gate)) {}
  void operator()(GateResult g) {
    if (on_gate_) on_gate_(g);
    report_.gates.push_back(std::move(g));
  }
  CheckReport Take() { return std::move(report_); }

 private:
  std::function<void(const GateResult&)> on_gate_;
  CheckReport report_;
};

// Hugging Face chat messages (the JSON form apply_chat_template takes) as ChatMessages.
// Throws glance::Error on tool calls (not supported).
std::vector<ChatMessage> MessagesFromJson(const nlohmann::json& messages);

GateResult TokenizerGate(const std::string& dir, const Tokenizer& tok);
GateResult TemplateGate(const std::string& dir, const Tokenizer& tok, const ChatTemplate& tmpl,
                        int32_t image_pad_id);

}  // namespace glance
