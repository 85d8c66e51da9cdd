#pragma once
// The individual gates of the reference check (reference_check.h), one function each.
#include <string>

#include "core/engine/reference_check.h"

namespace glance {

class Tokenizer;
class ChatTemplate;

GateResult TokenizerGate(const std::string& dir, const Tokenizer& tok);
GateResult TemplateGate(const std::string& dir, const Tokenizer& tok, const ChatTemplate& tmpl,
                        int32_t image_pad_id);

}  // namespace glance
