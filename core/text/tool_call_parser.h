#pragma once
// Tool calls in a Qwen3.5 answer, in the format its chat template teaches the model (the tools
// block of chat_template.jinja):
//   <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n...</function>\n</tool_call>
// after optional text. Each call's parameters become a JSON object of arguments, each value
// typed by the tool's JSON-Schema parameter type (a "string" parameter keeps its text; other
// types are read as JSON), as vLLM's qwen3_coder parser does.
//
// A call written badly — an unknown function, a block that does not close, a value that is not
// what its type says — is not guessed at: the whole answer stays text (ok = false, `problem`
// says why), and the server returns it as content.
#include <string>
#include <vector>

#include "core/text/chat_template.h"

namespace glance {

struct ParsedToolCalls {
  bool ok = false;               // the answer holds at least one call, all well formed
  std::string content;           // the text before the first call (trimmed); the whole answer when !ok
  std::vector<ToolCall> calls;   // in order; arguments as compact JSON text
  std::string problem;           // !ok and the answer mentions <tool_call>: why it was not taken
};

// `tools`: the request's tools, each a JSON object's text ({"type":"function","function":
// {"name", "parameters": {...}}}), for the names and parameter types.
ParsedToolCalls ParseToolCalls(const std::string& answer, const std::vector<std::string>& tools);

// True when `text` may still become the start of a tool call ("<tool_c", "<tool_call>..."):
// a streaming server holds such text back until the answer decides.
bool MayStartToolCall(const std::string& text);

}  // namespace glance
