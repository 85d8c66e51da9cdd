// The JSON pushdown automaton (json_automaton.h). The byte-level grammar is RFC 8259's
// (objects, arrays, strings with their escapes, numbers, literals), with the limits of
// json_grammar.h; strings must be valid UTF-8 (RFC 3629 table 3-7: no overlong forms, no
// surrogates, nothing past U+10FFFF).
#include "core/text/json_automaton.h"

#include <algorithm>
#include <cstring>

namespace glance::text {
namespace {

using Kind = GrammarNode::Kind;

enum Phase : uint8_t {
  kObjOpen, kObjFirst, kObjKey, kObjColon, kObjValue, kObjAfter, kObjNext,
  kArrOpen, kArrFirst, kArrAfter, kArrNext,
  kStrOpen, kStrBody, kStrEsc, kStrHex, kStrUtf8,
  kNumStart, kNumMinus, kNumZero, kNumInt, kNumFracStart, kNumFrac, kNumExpStart, kNumExpSign, kNumExp,
  kLit,
};

constexpr size_t kMaxStacks = 32;  // more live alternatives are dropped (still valid, fewer choices)

bool IsWs(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsDigit(uint8_t c) { return c >= '0' && c <= '9'; }
bool IsHex(uint8_t c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

int HexValue(uint8_t c) { return IsDigit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

// A constrained string's counters in JsonFrame::b.
uint32_t Count(const JsonFrame& f) { return static_cast<uint32_t>(f.b); }
uint32_t Pending(const JsonFrame& f) { return static_cast<uint32_t>(f.b >> 32); }
void SetCounters(JsonFrame& f, uint32_t count, uint32_t pending) { f.b = (uint64_t{pending} << 32) | count; }

// The code points a UTF-8 sequence can still become: `v` the bits read so far, `cls` the class
// of the next byte (JsonAutomaton::Utf8Class); contiguous, since only the next byte's range
// depends on the class.
std::pair<uint32_t, uint32_t> CompletionRange(uint32_t v, int cls) {
  static constexpr int kLeft[8] = {0, 1, 2, 3, 2, 2, 3, 3};
  static constexpr uint8_t kMin[8] = {0, 0x80, 0x80, 0x80, 0xA0, 0x80, 0x90, 0x80};
  static constexpr uint8_t kMax[8] = {0, 0xBF, 0xBF, 0xBF, 0xBF, 0x9F, 0xBF, 0x8F};
  const int rest = 6 * (kLeft[cls] - 1);
  const uint32_t lo = ((v << 6) | (kMin[cls] & 0x3Fu)) << rest;
  const uint32_t hi = ((((v << 6) | (kMax[cls] & 0x3Fu)) << rest)) | ((1u << rest) - 1);
  return {lo, hi};
}

bool IsContainer(Kind k) {
  return k == Kind::kObject || k == Kind::kAnyObject || k == Kind::kArray || k == Kind::kAnyArray;
}

JsonFrame StartFrame(const JsonGrammar& g, int32_t id) {
  JsonFrame f;
  f.node = id;
  const GrammarNode& n = g.nodes[static_cast<size_t>(id)];
  switch (n.kind) {
    case Kind::kObject:
    case Kind::kAnyObject: f.phase = kObjOpen; break;
    case Kind::kArray:
    case Kind::kAnyArray: f.phase = kArrOpen; break;
    case Kind::kString: f.phase = kStrOpen; break;
    case Kind::kNumber:
    case Kind::kInteger: f.phase = kNumStart; break;
    case Kind::kLiterals:
      f.phase = kLit;
      f.b = n.literals.size();
      break;
    case Kind::kAnyOf: break;  // never a frame: forked into its alternatives
  }
  return f;
}

// Properties that may come next from index i: i, and each after it while those before are optional.
uint64_t KeyCandidates(const GrammarNode& n, uint32_t i) {
  uint64_t mask = 0;
  for (size_t j = i; j < n.properties.size(); ++j) {
    mask |= uint64_t{1} << j;
    if (n.properties[j].required) break;
  }
  return mask;
}

bool NoRequiredFrom(const GrammarNode& n, uint32_t i) {
  for (size_t j = i; j < n.properties.size(); ++j)
    if (n.properties[j].required) return false;
  return true;
}

// A string with a pattern/format/length rule: the decoded code points walk the rule's DFA, a
// code point counted when it begins (its first byte, or the backslash of an escape); a byte is
// taken only when some code point it can begin or continue leads to a live (state, count).
// Escapes: \" \\ \/ \b \f \n \r \t and \uXXXX of a non-surrogate (the DFA has no surrogates),
// so every code point can be written and liveness over the DFA alone is exact.
enum RuledStep { kRefused = 0, kTaken = 1, kClosed = 2 };

const StringRule& RuleOf(const JsonGrammar& g, const JsonFrame& f) {
  return g.string_rules[static_cast<size_t>(g.nodes[static_cast<size_t>(f.node)].string_rule)];
}

// One whole code point `cp` (already counted in f).
int Complete(const StringRule& r, JsonFrame& f, uint32_t cp) {
  const int32_t t = r.dfa.Next(static_cast<int32_t>(f.dfa), cp);
  if (t < 0 || !r.Live(t, Count(f))) return kRefused;
  f.dfa = static_cast<uint32_t>(t);
  f.phase = kStrBody;
  f.a = 0;
  SetCounters(f, Count(f), 0);
  return kTaken;
}

int StepRuled(const JsonGrammar& g, JsonFrame& f, uint8_t c) {
  const StringRule& r = RuleOf(g, f);
  const int32_t s = static_cast<int32_t>(f.dfa);
  switch (f.phase) {
    case kStrBody: {
      if (c == '"') return r.CanClose(s, Count(f)) ? kClosed : kRefused;
      if (c < 0x20) return kRefused;
      const uint32_t count = r.Bump(Count(f));
      if (count == UINT32_MAX) return kRefused;
      if (c == '\\') {
        if (!r.AnyLiveIn(s, 0, 0xFFFF, count)) return kRefused;
        f.phase = kStrEsc;
        SetCounters(f, count, 0);
        return kTaken;
      }
      const int cls = JsonAutomaton::Utf8Next(0, c);
      if (cls < 0) return kRefused;
      SetCounters(f, count, 0);
      if (cls == 0) return Complete(r, f, c);
      const uint32_t v = c >= 0xF0 ? c & 0x07u : c >= 0xE0 ? c & 0x0Fu : c & 0x1Fu;
      const auto [lo, hi] = CompletionRange(v, cls);
      if (!r.AnyLiveIn(s, lo, hi, count)) return kRefused;
      f.phase = kStrUtf8;
      f.a = static_cast<uint32_t>(cls);
      SetCounters(f, count, v);
      return kTaken;
    }
    case kStrUtf8: {
      const int cls = JsonAutomaton::Utf8Next(static_cast<int>(f.a), c);
      if (cls < 0) return kRefused;
      const uint32_t v = (Pending(f) << 6) | (c & 0x3Fu);
      if (cls == 0) return Complete(r, f, v);
      const auto [lo, hi] = CompletionRange(v, cls);
      if (!r.AnyLiveIn(s, lo, hi, Count(f))) return kRefused;
      f.a = static_cast<uint32_t>(cls);
      SetCounters(f, Count(f), v);
      return kTaken;
    }
    case kStrEsc: {
      if (c == 'u') {
        f.phase = kStrHex;
        f.pos = 4;
        return kTaken;  // the backslash checked [0, FFFF]
      }
      static const char kFrom[] = "\"\\/bfnrt";
      static const uint8_t kTo[] = {'"', '\\', '/', '\b', '\f', '\n', '\r', '\t'};
      const char* at = c ? std::strchr(kFrom, c) : nullptr;
      if (!at) return kRefused;
      return Complete(r, f, kTo[at - kFrom]);
    }
    case kStrHex: {
      if (!IsHex(c)) return kRefused;
      const uint32_t v = (Pending(f) << 4) | static_cast<uint32_t>(HexValue(c));
      if (--f.pos == 0) return Complete(r, f, v);
      const int shift = 4 * f.pos;
      if (!r.AnyLiveIn(s, v << shift, (v << shift) | ((1u << shift) - 1), Count(f))) return kRefused;
      SetCounters(f, Count(f), v);
      return kTaken;
    }
    default: return kRefused;
  }
}

class Runner {
 public:
  Runner(const JsonGrammar& g, JsonState& out) : g_(g), out_(out) {}

  void Emit(const std::vector<JsonFrame>& st) {
    uint32_t begin = 0;
    for (uint32_t end : out_.ends) {
      if (end - begin == st.size() &&
          std::memcmp(out_.frames.data() + begin, st.data(), st.size() * sizeof(JsonFrame)) == 0)
        return;
      begin = end;
    }
    if (out_.ends.size() >= kMaxStacks) return;
    out_.frames.insert(out_.frames.end(), st.begin(), st.end());
    out_.ends.push_back(static_cast<uint32_t>(out_.frames.size()));
  }

  // Opens a value of node `id` on `st` and gives it `c`; an anyOf forks one stack per alternative.
  void Push(std::vector<JsonFrame>& st, int32_t id, uint8_t c) {
    const GrammarNode& n = g_.nodes[static_cast<size_t>(id)];
    if (n.kind == Kind::kAnyOf) {
      for (int32_t alt : n.alternatives) {
        if (IsContainer(g_.nodes[static_cast<size_t>(alt)].kind) && st.size() >= static_cast<size_t>(kMaxDepth)) continue;
        std::vector<JsonFrame> copy = st;
        copy.push_back(StartFrame(g_, alt));
        Run(copy, c);
      }
      return;
    }
    if (IsContainer(n.kind) && st.size() >= static_cast<size_t>(kMaxDepth)) return;
    st.push_back(StartFrame(g_, id));
    Run(st, c);
  }

  // Whitespace in a gap: counted, at most kMaxGapWhitespace.
  void Gap(std::vector<JsonFrame>& st) {
    JsonFrame& f = st.back();
    if (f.ws >= kMaxGapWhitespace) return;
    ++f.ws;
    Emit(st);
  }

  void Run(std::vector<JsonFrame>& st, uint8_t c) {
    while (!st.empty()) {
      JsonFrame& f = st.back();
      const GrammarNode& n = g_.nodes[static_cast<size_t>(f.node)];
      const bool any_object = n.kind == Kind::kAnyObject;
      switch (f.phase) {
        case kObjOpen:
          if (c != '{') return;
          f.phase = kObjFirst;
          return Emit(st);
        case kObjFirst:
        case kObjNext:
          if (IsWs(c)) return Gap(st);
          if (c == '}' && f.phase == kObjFirst && (any_object || NoRequiredFrom(n, f.a))) {
            st.pop_back();
            return Emit(st);
          }
          if (c != '"') return;
          f.ws = 0;
          if (any_object) {
            f.phase = kObjColon;
            JsonFrame key = StartFrame(g_, JsonGrammar::kStringNode);
            key.phase = kStrBody;
            st.push_back(key);
            return Emit(st);
          } else {
            const uint64_t mask = KeyCandidates(n, f.a);
            if (!mask) return;
            f.phase = kObjKey;
            f.pos = 1;
            f.b = mask;
            return Emit(st);
          }
        case kObjKey: {
          uint64_t next = 0;
          int32_t done = -1;
          for (uint64_t m = f.b; m; m &= m - 1) {
            const int j = __builtin_ctzll(m);
            const std::string& key = n.properties[static_cast<size_t>(j)].key;
            if (key.size() > f.pos && static_cast<uint8_t>(key[f.pos]) == c) {
              next |= uint64_t{1} << j;
              if (key.size() == f.pos + 1u) done = j;
            }
          }
          if (!next) return;
          if (done >= 0) {  // a whole quoted key: only one can end here (the keys differ)
            f.phase = kObjColon;
            f.a = static_cast<uint32_t>(done);
            f.pos = 0;
            f.b = 0;
          } else {
            ++f.pos;
            f.b = next;
          }
          return Emit(st);
        }
        case kObjColon:
          if (IsWs(c)) return Gap(st);
          if (c != ':') return;
          f.phase = kObjValue;
          f.ws = 0;
          return Emit(st);
        case kObjValue: {
          if (IsWs(c)) return Gap(st);
          const int32_t child = any_object ? JsonGrammar::kAnyValue : n.properties[f.a].node;
          f.phase = kObjAfter;
          f.ws = 0;
          if (!any_object) ++f.a;
          return Push(st, child, c);
        }
        case kObjAfter:
          if (IsWs(c)) return Gap(st);
          if (c == ',' && (any_object || KeyCandidates(n, f.a))) {
            f.phase = kObjNext;
            f.ws = 0;
            return Emit(st);
          }
          if (c == '}' && (any_object || NoRequiredFrom(n, f.a))) {
            st.pop_back();
            return Emit(st);
          }
          return;
        case kArrOpen:
          if (c != '[') return;
          f.phase = kArrFirst;
          return Emit(st);
        case kArrFirst:
        case kArrNext: {
          if (IsWs(c)) return Gap(st);
          const uint32_t min = n.kind == Kind::kArray ? n.min_items : 0;
          const uint32_t max = n.max_items;
          if (c == ']' && f.phase == kArrFirst) {
            if (min > 0) return;
            st.pop_back();
            return Emit(st);
          }
          if (f.a >= max) return;
          f.phase = kArrAfter;
          f.ws = 0;
          ++f.a;
          return Push(st, n.items, c);
        }
        case kArrAfter: {
          if (IsWs(c)) return Gap(st);
          const uint32_t min = n.kind == Kind::kArray ? n.min_items : 0;
          if (c == ',' && f.a < n.max_items) {
            f.phase = kArrNext;
            f.ws = 0;
            return Emit(st);
          }
          if (c == ']' && f.a >= min) {
            st.pop_back();
            return Emit(st);
          }
          return;
        }
        case kStrOpen:
          if (c != '"') return;
          f.phase = kStrBody;
          return Emit(st);
        case kStrBody: {
          if (n.string_rule >= 0) return Ruled(st, c);
          if (c == '"') {
            st.pop_back();
            return Emit(st);
          }
          if (c == '\\') {
            f.phase = kStrEsc;
            return Emit(st);
          }
          if (c < 0x20) return;
          const int cls = JsonAutomaton::Utf8Next(0, c);
          if (cls < 0) return;
          if (cls > 0) {
            f.phase = kStrUtf8;
            f.a = static_cast<uint32_t>(cls);
          }
          return Emit(st);
        }
        case kStrUtf8: {
          if (n.string_rule >= 0) return Ruled(st, c);
          const int cls = JsonAutomaton::Utf8Next(static_cast<int>(f.a), c);
          if (cls < 0) return;
          f.a = static_cast<uint32_t>(cls);
          if (cls == 0) f.phase = kStrBody;
          return Emit(st);
        }
        case kStrEsc:
          if (n.string_rule >= 0) return Ruled(st, c);
          if (c == 'u') {
            f.phase = kStrHex;
            f.pos = 4;
            return Emit(st);
          }
          if (!std::strchr("\"\\/bfnrt", c) || c == 0) return;
          f.phase = kStrBody;
          return Emit(st);
        case kStrHex:
          if (n.string_rule >= 0) return Ruled(st, c);
          if (!IsHex(c)) return;
          if (--f.pos == 0) f.phase = kStrBody;
          return Emit(st);
        case kNumStart:
        case kNumMinus:
          if (c == '-' && f.phase == kNumStart) {
            f.phase = kNumMinus;
            return Emit(st);
          }
          if (!IsDigit(c)) return;
          f.phase = c == '0' ? kNumZero : kNumInt;
          f.pos = 1;
          return Emit(st);
        case kNumZero:
        case kNumInt:
        case kNumFrac:
        case kNumExp: {
          const bool integer = n.kind == Kind::kInteger;
          if (IsDigit(c) && f.phase != kNumZero) {
            const int cap = f.phase == kNumInt ? kMaxIntegerDigits : f.phase == kNumFrac ? kMaxFractionDigits : kMaxExponentDigits;
            if (f.pos >= cap) return;
            ++f.pos;
            return Emit(st);
          }
          if (!integer && c == '.' && (f.phase == kNumZero || f.phase == kNumInt)) {
            f.phase = kNumFracStart;
            f.pos = 0;
            return Emit(st);
          }
          if (!integer && (c == 'e' || c == 'E') && f.phase != kNumExp) {
            f.phase = kNumExpStart;
            f.pos = 0;
            return Emit(st);
          }
          st.pop_back();  // the number ends here; the byte is the parent's
          continue;
        }
        case kNumFracStart:
          if (!IsDigit(c)) return;
          f.phase = kNumFrac;
          f.pos = 1;
          return Emit(st);
        case kNumExpStart:
          if (c == '+' || c == '-') {
            f.phase = kNumExpSign;
            return Emit(st);
          }
          [[fallthrough]];
        case kNumExpSign:
          if (!IsDigit(c)) return;
          f.phase = kNumExp;
          f.pos = 1;
          return Emit(st);
        case kLit: {
          const std::vector<std::string>& lits = n.literals;
          uint32_t lo = f.a, hi = static_cast<uint32_t>(f.b), nlo = hi, nhi = hi;
          for (uint32_t i = lo; i < hi; ++i) {
            const std::string& l = lits[i];
            if (l.size() > f.pos && static_cast<uint8_t>(l[f.pos]) == c) {
              if (nlo == hi) nlo = i;
              nhi = i + 1;
            } else if (nlo != hi) {
              break;  // sorted: the matches are one run
            }
          }
          if (nlo != hi) {
            f.a = nlo;
            f.b = nhi;
            ++f.pos;
            return Emit(st);
          }
          if (lits[lo].size() != f.pos) return;
          st.pop_back();  // the literal is whole; the byte is the parent's
          continue;
        }
        default:
          return;
      }
    }
    // Nothing open: the document is over and takes no more bytes.
  }

 private:
  void Ruled(std::vector<JsonFrame>& st, uint8_t c) {
    const int r = StepRuled(g_, st.back(), c);
    if (r == kRefused) return;
    if (r == kClosed) st.pop_back();
    Emit(st);
  }

  const JsonGrammar& g_;
  JsonState& out_;
};

// Whether a stack can end here: open numbers and whole literals close, then nothing is left.
bool StackCanEnd(const JsonGrammar& g, const JsonFrame* begin, const JsonFrame* end) {
  while (end != begin) {
    const JsonFrame& f = *(end - 1);
    const GrammarNode& n = g.nodes[static_cast<size_t>(f.node)];
    const bool number_whole = f.phase == kNumZero || f.phase == kNumInt || f.phase == kNumFrac || f.phase == kNumExp;
    const bool literal_whole = f.phase == kLit && n.literals[f.a].size() == f.pos;
    if (!number_whole && !literal_whole) return false;
    --end;
  }
  return true;
}

}  // namespace

JsonAutomaton::JsonAutomaton(std::shared_ptr<const JsonGrammar> grammar) : grammar_(std::move(grammar)) {}

JsonState JsonAutomaton::Start() const {
  JsonState s;
  const GrammarNode& root = grammar_->nodes[static_cast<size_t>(grammar_->root)];
  std::vector<int32_t> ids = root.kind == Kind::kAnyOf ? root.alternatives : std::vector<int32_t>{grammar_->root};
  for (int32_t id : ids) {
    s.frames.push_back(StartFrame(*grammar_, id));
    s.ends.push_back(static_cast<uint32_t>(s.frames.size()));
  }
  return s;
}

void JsonAutomaton::Step(const JsonState& in, uint8_t byte, JsonState& out) const {
  out.frames.clear();
  out.ends.clear();
  thread_local std::vector<JsonFrame> work;
  Runner r(*grammar_, out);
  uint32_t begin = 0;
  for (uint32_t end : in.ends) {
    work.assign(in.frames.begin() + begin, in.frames.begin() + end);
    r.Run(work, byte);
    begin = end;
  }
}

bool JsonAutomaton::CanEnd(const JsonState& s) const {
  uint32_t begin = 0;
  for (uint32_t end : s.ends) {
    if (StackCanEnd(*grammar_, s.frames.data() + begin, s.frames.data() + end)) return true;
    begin = end;
  }
  return false;
}

bool JsonAutomaton::InStringBody(const JsonState& s, int& utf8_class, uint32_t& room) const {
  if (s.ends.size() != 1 || s.frames.empty()) return false;
  const JsonFrame& f = s.frames.back();
  const GrammarNode& n = grammar_->nodes[static_cast<size_t>(f.node)];
  room = UINT32_MAX;
  if (n.kind == Kind::kString && n.string_rule >= 0 && (f.phase == kStrBody || f.phase == kStrUtf8)) {
    const StringRule& r = grammar_->string_rules[static_cast<size_t>(n.string_rule)];
    if (!r.universal[f.dfa]) return false;
    if (r.has_max()) room = r.max_length - Count(f);
  }
  if (f.phase == kStrBody) {
    utf8_class = 0;
    return true;
  }
  if (f.phase == kStrUtf8) {
    utf8_class = static_cast<int>(f.a);
    return true;
  }
  return false;
}

bool JsonAutomaton::InRuledString(const JsonState& s) const {
  if (s.ends.size() != 1 || s.frames.empty()) return false;
  const JsonFrame& f = s.frames.back();
  const GrammarNode& n = grammar_->nodes[static_cast<size_t>(f.node)];
  return n.kind == Kind::kString && n.string_rule >= 0 &&
         (f.phase == kStrBody || f.phase == kStrUtf8 || f.phase == kStrEsc || f.phase == kStrHex);
}

int JsonAutomaton::StepRuledString(JsonFrame& f, uint8_t byte) const { return StepRuled(*grammar_, f, byte); }

bool JsonAutomaton::Feed(JsonState& s, std::string_view text) const {
  JsonState next;
  for (char ch : text) {
    Step(s, static_cast<uint8_t>(ch), next);
    std::swap(s, next);
    if (s.dead()) return false;
  }
  return true;
}

bool JsonAutomaton::Accepts(std::string_view text) const {
  JsonState s = Start();
  return Feed(s, text) && CanEnd(s);
}

int JsonAutomaton::Utf8Class(int pending, uint8_t lo, uint8_t hi) {
  if (pending == 0) return 0;
  if (lo == 0x80 && hi == 0xBF) return pending;  // 1, 2, 3
  if (pending == 2 && lo == 0xA0) return 4;
  if (pending == 2 && hi == 0x9F) return 5;
  if (pending == 3 && lo == 0x90) return 6;
  return 7;  // pending 3, 80..8F
}

int JsonAutomaton::Utf8Next(int cls, uint8_t c) {
  auto in = [c](int lo, int hi) { return c >= lo && c <= hi; };
  switch (cls) {
    case 0:
      if (c < 0x80) return 0;
      if (in(0xC2, 0xDF)) return 1;
      if (c == 0xE0) return 4;
      if (c == 0xED) return 5;
      if (in(0xE1, 0xEF)) return 2;
      if (c == 0xF0) return 6;
      if (in(0xF1, 0xF3)) return 3;
      if (c == 0xF4) return 7;
      return -1;
    case 1: return in(0x80, 0xBF) ? 0 : -1;
    case 2: return in(0x80, 0xBF) ? 1 : -1;
    case 3: return in(0x80, 0xBF) ? 2 : -1;
    case 4: return in(0xA0, 0xBF) ? 1 : -1;
    case 5: return in(0x80, 0x9F) ? 1 : -1;
    case 6: return in(0x90, 0xBF) ? 2 : -1;
    case 7: return in(0x80, 0x8F) ? 2 : -1;
    default: return -1;
  }
}

}  // namespace glance::text
