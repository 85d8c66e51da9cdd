#pragma once
// The pushdown automaton of a JsonGrammar (json_grammar.h): reads a document byte by byte and
// says whether what it read so far is a prefix of a document the grammar accepts, and whether
// it is a whole one.
//
// A state is a set of stacks (anyOf forks one stack per alternative where a value starts; a
// stack that cannot take the next byte is dropped), each stack a list of frames, one per open
// value (object, array, string, number, literal). States are small flat values: the token
// mask (json_token_mask.h) copies one per byte it tries.
//
// Thread contract: a JsonAutomaton is immutable (shared by every answer of a schema); a
// JsonState belongs to one answer.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/text/json_grammar.h"

namespace glance::text {

// One open value. 24 bytes, no padding, all fields zeroed when made: the bytes of a state are
// its identity (json_token_mask.h caches masks by them).
struct JsonFrame {
  int32_t node = 0;
  uint8_t phase = 0;
  uint8_t ws = 0;      // whitespace bytes in the current gap
  uint16_t pos = 0;    // literal / key position, digits, hex digits or UTF-8 bytes left
  uint32_t a = 0;      // property index, item count, literal range start, UTF-8 bounds
  uint32_t dfa = 0;    // a constrained string: its rule's DFA state before the pending code point
  uint64_t b = 0;      // key candidates (one bit per property), literal range end; a constrained
                       // string: code points begun (low 32 bits), the pending one's bits (high)
  bool operator==(const JsonFrame&) const = default;
};

struct JsonState {
  std::vector<JsonFrame> frames;  // the stacks, one after another
  std::vector<uint32_t> ends;     // end of each stack in `frames`
  size_t stacks() const { return ends.size(); }
  bool dead() const { return ends.empty(); }
  // The state's bytes, for hashing.
  std::string_view Key() const {
    return {reinterpret_cast<const char*>(frames.data()), frames.size() * sizeof(JsonFrame)};
  }
};

class JsonAutomaton {
 public:
  explicit JsonAutomaton(std::shared_ptr<const JsonGrammar> grammar);

  // The state before the first byte.
  JsonState Start() const;
  // `out` = `in` after `byte` (out.dead() when no stack takes it). `out` is overwritten and
  // keeps its capacity, so a caller stepping many bytes allocates nothing.
  void Step(const JsonState& in, uint8_t byte, JsonState& out) const;
  // Whether the bytes read so far are a whole document (the answer may end here).
  bool CanEnd(const JsonState& s) const;
  // Whether `s` is exactly one stack inside a string's characters (not in an escape) where every
  // plain string token that begins at most `room` code points is allowed, and which UTF-8 class
  // its next byte is in (json_token_mask.h's fast path): 0 none pending, else Utf8Class below.
  // `room` is UINT32_MAX for a string without a length bound; a string with a pattern or format
  // qualifies only in a DFA state every continuation of which matches.
  bool InStringBody(const JsonState& s, int& utf8_class, uint32_t& room) const;

  // Whether `s` is one stack whose open value is a string with a pattern/format/length rule,
  // past its opening quote; then StepRuledString steps that (last) frame alone, as Step would:
  // 0 the byte is refused, 1 taken, 2 it closes the string (the state is then `s` without the
  // frame). json_token_mask.h walks such strings with this, a frame per byte, not a state.
  bool InRuledString(const JsonState& s) const;
  int StepRuledString(JsonFrame& f, uint8_t byte) const;

  // Steps every byte of `text` from `s`; false (and `s` dead) when a byte is refused.
  bool Feed(JsonState& s, std::string_view text) const;
  // Whether `text` is a whole document of the grammar (tests).
  bool Accepts(std::string_view text) const;

  const JsonGrammar& grammar() const { return *grammar_; }

  // The UTF-8 continuation classes a string can be in between bytes (RFC 3629 table 3-7):
  // bytes still to come and the range of the next one.
  static constexpr int kUtf8Classes = 8;
  static int Utf8Class(int pending, uint8_t lo, uint8_t hi);
  // Steps the UTF-8 class of a string body over one byte that is not '"', '\\' or a control
  // character: the next class, or -1 when the byte breaks UTF-8 there.
  static int Utf8Next(int cls, uint8_t byte);

 private:
  std::shared_ptr<const JsonGrammar> grammar_;
};

}  // namespace glance::text
