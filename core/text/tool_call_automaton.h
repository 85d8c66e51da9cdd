#pragma once
// The language of a tool-call answer, byte by byte, for constrained decoding (tool_choice
// "required" or a named function; issue 29). An answer is one or more calls in the format the
// chat template teaches (tool_call_parser.h), nothing before them:
//   <tool_call>\n<function=NAME>\n
//   <parameter=KEY>\nVALUE\n</parameter>\n ...        (each KEY of NAME's parameters at most once)
//   </function>\n</tool_call>
// further calls each after "\n", up to `max_calls`. NAME is one of the allowed functions; the
// function ends only once its required parameters are written. A "string" parameter's VALUE is
// any text without "</parameter>" (the parser keeps it as text); any other parameter's VALUE is
// a JSON value its schema accepts, by json_automaton.h (the schema subset of json_grammar.h: a
// keyword outside it is refused by name when the automaton is built). Every answer this accepts
// is parsed by ParseToolCalls into calls whose arguments fit their types.
//
// Thread contract: a ToolCallAutomaton is immutable; a ToolCallState belongs to one answer.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/text/json_automaton.h"

namespace glance::text {

struct ToolCallState {
  enum Phase : uint8_t { kLiteral, kName, kParamOrEnd, kKey, kStringValue, kJsonValue, kAfterCall, kDead };
  Phase phase = kLiteral;
  uint8_t literal = 0;  // kLiteral: which fixed text (ToolCallAutomaton's table)
  uint16_t pos = 0;     // bytes of the literal, of "</parameter>" (kStringValue) or 0/1 ('<' read, kParamOrEnd)
  int16_t function = -1;
  int16_t param = -1;
  uint16_t calls = 0;   // calls completed
  uint64_t used = 0;    // parameters written (bit per parameter)
  std::string typed;    // kName / kKey: the bytes of the name so far
  JsonState json;       // kJsonValue

  bool dead() const { return phase == kDead; }
  std::string Key() const;  // the state's identity, for caching masks
};

class ToolCallAutomaton {
 public:
  // `tools`: the request's tools (each {"type": "function", "function": {name, parameters}} as
  // JSON text); `only`: the one function allowed ("" = any of them); `max_calls` >= 1. Throws
  // glance::Error naming the tool and the schema keyword it cannot enforce.
  ToolCallAutomaton(const std::vector<std::string>& tools, const std::string& only, int max_calls);

  ToolCallState Start() const;
  // `out` = `in` after `byte` (out.dead() when refused).
  void Step(const ToolCallState& in, uint8_t byte, ToolCallState& out) const;
  bool CanEnd(const ToolCallState& s) const { return s.phase == ToolCallState::kAfterCall; }
  bool Feed(ToolCallState& s, const std::string& text) const;  // false (dead) when refused
  bool Accepts(const std::string& text) const;                // a whole answer (tests)

  struct Param {
    std::string key;
    bool required = false;
    bool is_string = false;                      // a "string" parameter: free text
    std::shared_ptr<const JsonAutomaton> value;  // otherwise: its JSON values
  };
  struct Function {
    std::string name;
    std::vector<Param> params;
    uint64_t required = 0;  // bits of the required parameters
  };
  const std::vector<Function>& functions() const { return functions_; }

 private:
  std::vector<Function> functions_;
  int max_calls_ = 1;
};

}  // namespace glance::text
