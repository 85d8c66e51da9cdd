#pragma once
// String constraints of a JSON Schema (issue 29): `pattern`, `format`, `minLength`, `maxLength`,
// compiled into a deterministic automaton over Unicode scalar values (code points without the
// surrogates) plus a code-point counter, with the liveness of every (state, count) precomputed so
// the JSON automaton (json_automaton.h) refuses a byte as soon as no string the rule accepts
// starts with what was written.
//
// Patterns are ECMA-262 regular expressions read as with the `u` flag (as ajv compiles them:
// one code point per character), with JSON Schema's search semantics: a pattern without `^`/`$`
// matches anywhere in the string. Supported: literals, escapes (\t \n \v \f \r \0 \cX \xHH
// \uHHHH \u{H..} and escaped syntax characters), `.`, classes `[...]`/`[^...]` with ranges,
// \d \D \w \W \s \S, groups `(...)`, `(?:...)`, `(?<name>...)`, alternation, quantifiers ? * +
// {m} {m,} {m,n} (m, n <= 1000; lazy forms match the same strings), anchors ^ and $ anywhere.
// Refused, naming the feature: backreferences, lookahead/lookbehind, \b \B, \p{..}, escapes the
// `u` flag refuses, surrogate escapes.
//
// Thread contract: every type here is an immutable value once built.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace glance::text {

inline constexpr uint32_t kMaxStringLength = 10000;  // minLength/maxLength above this are refused

// A DFA over code points 0..0x10FFFF without D800..DFFF. State 0 is the start.
struct CodePointDfa {
  struct Range {
    uint32_t lo, hi;
    int32_t next;
  };
  std::vector<uint32_t> begin;  // state s's ranges: ranges[begin[s], begin[s + 1]), sorted, disjoint
  std::vector<Range> ranges;
  std::vector<uint8_t> accepting;
  std::vector<int32_t> ascii;  // s * 128 + c: the next state, -1 none
  size_t size() const { return accepting.size(); }
  int32_t Next(int32_t s, uint32_t cp) const;
  bool Matches(const std::u32string& text) const;  // tests
};

// Thrown by CompilePattern: `what` names the unsupported feature or the syntax error.
struct PatternError {
  std::string what;
};

// The strings in which `pattern` (UTF-8) matches somewhere (ECMA-262, u flag). Throws PatternError.
CodePointDfa CompilePattern(const std::string& pattern);
// The strings both accept.
CodePointDfa IntersectDfa(const CodePointDfa& a, const CodePointDfa& b);

// The formats whose strings an automaton checks exactly (json_string_rule.cpp says which strings
// each one writes); `implied_max` gets a length bound the format carries (hostname: 253), else
// stays. Returns false for any other format.
bool FormatDfa(const std::string& format, CodePointDfa& out, uint32_t& implied_max);
const std::vector<std::string>& SupportedFormats();

struct StringRule {
  CodePointDfa dfa;
  uint32_t min_length = 0;
  uint32_t max_length = UINT32_MAX;  // UINT32_MAX: none
  uint32_t levels = 0;               // counts kept: 0..levels (max_length, else min_length: saturating)
  std::vector<uint8_t> live;         // s * (levels + 1) + count: some accepted string continues here
  std::vector<uint8_t> universal;    // s: every continuation is accepted (ignoring the length)

  bool has_max() const { return max_length != UINT32_MAX; }
  // The count after one more code point, or UINT32_MAX when that passes max_length.
  uint32_t Bump(uint32_t count) const {
    if (has_max()) return count + 1 <= max_length ? count + 1 : UINT32_MAX;
    return count + 1 <= levels ? count + 1 : levels;
  }
  bool Live(int32_t s, uint32_t count) const { return live[static_cast<size_t>(s) * (levels + 1) + count] != 0; }
  // Whether a code point in [lo, hi] leads from s to a live state at `count` (already bumped).
  bool AnyLiveIn(int32_t s, uint32_t lo, uint32_t hi, uint32_t count) const;
  bool CanClose(int32_t s, uint32_t count) const { return dfa.accepting[static_cast<size_t>(s)] && count >= min_length; }
};

// Fills levels/live/universal. Throws PatternError when the table would be too large.
void FinishStringRule(StringRule& rule);

}  // namespace glance::text
