// String constraints (json_string_rule.h): an ECMA-262 pattern parser, a Thompson NFA over
// code-point ranges with ^/$ as assertion edges, the subset construction to a DFA, the formats
// as patterns, and the (state, length) liveness table.
#include "core/text/json_string_rule.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace glance::text {
namespace {

constexpr uint32_t kMaxCp = 0x10FFFF;
constexpr size_t kMaxNfaStates = 40000;
constexpr size_t kMaxDfaStates = 6000;
constexpr uint32_t kMaxRepeat = 1000;
constexpr size_t kMaxLiveCells = 20000000;  // (ranges + states) x levels
constexpr size_t kMaxSubsetElements = 2000000;  // NFA states over all DFA states' sets

using Ranges = std::vector<std::pair<uint32_t, uint32_t>>;

[[noreturn]] void Refuse(const std::string& what) { throw PatternError{what}; }

// Sorted, merged, without the surrogates.
Ranges Normalize(Ranges r) {
  std::sort(r.begin(), r.end());
  Ranges merged;
  for (auto [lo, hi] : r) {
    if (!merged.empty() && lo <= merged.back().second + 1) merged.back().second = std::max(merged.back().second, hi);
    else merged.push_back({lo, hi});
  }
  Ranges out;
  for (auto [lo, hi] : merged) {
    if (hi < 0xD800 || lo > 0xDFFF) out.push_back({lo, hi});
    else {
      if (lo < 0xD800) out.push_back({lo, 0xD7FF});
      if (hi > 0xDFFF) out.push_back({0xE000, hi});
    }
  }
  return out;
}

Ranges Complement(const Ranges& r) {
  Ranges n = Normalize(r), out;
  uint32_t next = 0;
  for (auto [lo, hi] : n) {
    if (lo > next) out.push_back({next, lo - 1});
    next = hi + 1;
  }
  if (next <= kMaxCp) out.push_back({next, kMaxCp});
  return Normalize(out);
}

Ranges Digits() { return {{'0', '9'}}; }
Ranges Word() { return {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}; }
Ranges Space() {
  return {{'\t', '\r'}, {' ', ' '}, {0xA0, 0xA0}, {0x1680, 0x1680}, {0x2000, 0x200A}, {0x2028, 0x2029},
          {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}, {0xFEFF, 0xFEFF}};
}
Ranges AnyButLineEnd() { return Complement({{'\n', '\n'}, {'\r', '\r'}, {0x2028, 0x2029}}); }
Ranges All() { return Normalize({{0, kMaxCp}}); }

// ---- the pattern's syntax tree

struct Ast {
  enum Kind { kEmpty, kSet, kConcat, kAlt, kRepeat, kStart, kEnd } kind = kEmpty;
  Ranges set;
  std::vector<Ast> kids;
  uint32_t min = 0, max = 0;  // kRepeat; max UINT32_MAX: unbounded
};

class Parser {
 public:
  explicit Parser(const std::string& utf8) {
    for (size_t i = 0; i < utf8.size();) {
      const uint8_t c = static_cast<uint8_t>(utf8[i]);
      const int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
      uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
      for (int k = 1; k < n && i + k < utf8.size(); ++k) cp = (cp << 6) | (static_cast<uint8_t>(utf8[i + k]) & 0x3F);
      cps_.push_back(cp);
      i += static_cast<size_t>(n);
    }
  }

  Ast Parse() {
    Ast a = Alternation(0);
    if (i_ < cps_.size()) Refuse("an unmatched ')'");
    return a;
  }

 private:
  bool More() const { return i_ < cps_.size(); }
  uint32_t Peek(size_t k = 0) const { return i_ + k < cps_.size() ? cps_[i_ + k] : 0xFFFFFFFF; }

  Ast Alternation(int depth) {
    if (depth > 100) Refuse("groups nested deeper than 100");
    Ast alt;
    alt.kind = Ast::kAlt;
    alt.kids.push_back(Sequence(depth));
    while (More() && Peek() == '|') {
      ++i_;
      alt.kids.push_back(Sequence(depth));
    }
    return alt.kids.size() == 1 ? std::move(alt.kids[0]) : alt;
  }

  Ast Sequence(int depth) {
    Ast seq;
    seq.kind = Ast::kConcat;
    while (More() && Peek() != '|' && Peek() != ')') seq.kids.push_back(Quantified(depth));
    return seq;
  }

  uint32_t Number() {
    uint64_t v = 0;
    size_t start = i_;
    while (More() && Peek() >= '0' && Peek() <= '9') {
      v = std::min<uint64_t>(v * 10 + (Peek() - '0'), 1u << 30);
      ++i_;
    }
    if (i_ == start) Refuse("a malformed {m,n} quantifier");
    return static_cast<uint32_t>(v);
  }

  Ast Quantified(int depth) {
    const bool assertion = Peek() == '^' || Peek() == '$';
    Ast atom = Atom(depth);
    for (bool first = true; More(); first = false) {
      const uint32_t c = Peek();
      uint32_t lo, hi;
      if (c == '*') lo = 0, hi = UINT32_MAX, ++i_;
      else if (c == '+') lo = 1, hi = UINT32_MAX, ++i_;
      else if (c == '?') lo = 0, hi = 1, ++i_;
      else if (c == '{') {
        ++i_;
        lo = Number();
        hi = lo;
        if (Peek() == ',') {
          ++i_;
          hi = Peek() == '}' ? UINT32_MAX : Number();
        }
        if (Peek() != '}') Refuse("a malformed {m,n} quantifier");
        ++i_;
        if (hi < lo) Refuse("a {m,n} quantifier with n < m");
        if (lo > kMaxRepeat || (hi != UINT32_MAX && hi > kMaxRepeat))
          Refuse("a repetition count over " + std::to_string(kMaxRepeat));
      } else {
        break;
      }
      if (!first) Refuse("a quantifier after a quantifier (nothing to repeat)");
      if (assertion) Refuse("a quantifier on an anchor");
      if (Peek() == '?') ++i_;  // lazy: the same strings match
      Ast r;
      r.kind = Ast::kRepeat;
      r.min = lo;
      r.max = hi;
      r.kids.push_back(std::move(atom));
      atom = std::move(r);
    }
    return atom;
  }

  static Ast SetOf(Ranges r) {
    Ast a;
    a.kind = Ast::kSet;
    a.set = Normalize(std::move(r));
    return a;
  }

  Ast Atom(int depth) {
    const uint32_t c = cps_[i_++];
    switch (c) {
      case '^': {
        Ast a;
        a.kind = Ast::kStart;
        return a;
      }
      case '$': {
        Ast a;
        a.kind = Ast::kEnd;
        return a;
      }
      case '.': return SetOf(AnyButLineEnd());
      case '(': {
        if (Peek() == '?') {
          if (Peek(1) == ':') i_ += 2;
          else if (Peek(1) == '=' || Peek(1) == '!') Refuse("lookahead (?= / (?!)");
          else if (Peek(1) == '<' && (Peek(2) == '=' || Peek(2) == '!')) Refuse("lookbehind (?<= / (?<!)");
          else if (Peek(1) == '<') {
            i_ += 2;
            size_t start = i_;
            while (More() && Peek() != '>') {
              const uint32_t n = Peek();
              if (!((n >= 'a' && n <= 'z') || (n >= 'A' && n <= 'Z') || (n >= '0' && n <= '9' && i_ > start) || n == '_' || n == '$'))
                Refuse("a malformed group name");
              ++i_;
            }
            if (!More() || i_ == start) Refuse("a malformed group name");
            ++i_;
          } else {
            Refuse("a group modifier (?" + std::string(1, static_cast<char>(Peek(1) < 128 ? Peek(1) : '?')) + "...)");
          }
        }
        Ast inner = Alternation(depth + 1);
        if (!More() || Peek() != ')') Refuse("an unclosed group '('");
        ++i_;
        return inner;
      }
      case ')': Refuse("an unmatched ')'");
      case '*':
      case '+':
      case '?':
      case '{': Refuse("a quantifier with nothing to repeat");
      case '}':
      case ']': Refuse(std::string("an unescaped '") + static_cast<char>(c) + "' (invalid with the u flag)");
      case '[': return Class();
      case '\\': {
        Ranges r;
        Escape(false, r);
        return SetOf(std::move(r));
      }
      default: return SetOf({{c, c}});
    }
  }

  uint32_t Hex(int digits) {
    uint32_t v = 0;
    for (int k = 0; k < digits; ++k) {
      const uint32_t h = Peek();
      int d = h >= '0' && h <= '9' ? static_cast<int>(h - '0') : h >= 'a' && h <= 'f' ? static_cast<int>(h - 'a' + 10)
              : h >= 'A' && h <= 'F' ? static_cast<int>(h - 'A' + 10) : -1;
      if (d < 0) Refuse("a malformed \\x or \\u escape");
      v = v * 16 + static_cast<uint32_t>(d);
      ++i_;
    }
    return v;
  }

  // After a backslash: the code points it stands for. `in_class`: \b is backspace, \- is '-'.
  // Returns true; `single` tells whether it is one code point (a range end).
  bool Escape(bool in_class, Ranges& out, bool* single = nullptr) {
    if (!More()) Refuse("a trailing backslash");
    const uint32_t c = cps_[i_++];
    auto one = [&](uint32_t cp) {
      if (cp >= 0xD800 && cp <= 0xDFFF) Refuse("a surrogate escape (\\uD800-\\uDFFF)");
      out = {{cp, cp}};
      if (single) *single = true;
      return true;
    };
    if (single) *single = false;
    switch (c) {
      case 'd': out = Digits(); return true;
      case 'D': out = Complement(Digits()); return true;
      case 'w': out = Word(); return true;
      case 'W': out = Complement(Word()); return true;
      case 's': out = Space(); return true;
      case 'S': out = Complement(Space()); return true;
      case 't': return one('\t');
      case 'n': return one('\n');
      case 'v': return one('\v');
      case 'f': return one('\f');
      case 'r': return one('\r');
      case 'b':
        if (in_class) return one('\b');
        Refuse("the word-boundary assertion \\b");
      case 'B': Refuse("the word-boundary assertion \\B");
      case '0':
        if (Peek() >= '0' && Peek() <= '9') Refuse("an octal escape");
        return one(0);
      case 'x': return one(Hex(2));
      case 'u': {
        if (Peek() == '{') {
          ++i_;
          uint32_t v = 0;
          size_t start = i_;
          while (More() && Peek() != '}') {
            v = v * 16 + Hex(1);
            if (v > kMaxCp) Refuse("a \\u{...} escape past U+10FFFF");
          }
          if (!More() || i_ == start) Refuse("a malformed \\u{...} escape");
          ++i_;
          return one(v);
        }
        return one(Hex(4));
      }
      case 'c': {
        const uint32_t l = Peek();
        if (!((l >= 'a' && l <= 'z') || (l >= 'A' && l <= 'Z'))) Refuse("a malformed \\c escape");
        ++i_;
        return one(l % 32);
      }
      case 'k': Refuse("a named backreference \\k<...>");
      case 'p':
      case 'P': Refuse("a Unicode property escape \\p{...}");
      default: break;
    }
    if (c >= '1' && c <= '9') Refuse("a backreference \\" + std::string(1, static_cast<char>(c)));
    const std::string syntax = "^$\\.*+?()[]{}|/";
    if (c < 128 && syntax.find(static_cast<char>(c)) != std::string::npos) return one(c);
    if (in_class && c == '-') return one(c);
    Refuse(std::string("the escape \\") + (c < 128 ? std::string(1, static_cast<char>(c)) : std::string("<non-ASCII>")) +
           " (invalid with the u flag)");
  }

  Ast Class() {
    bool negate = false;
    if (Peek() == '^') {
      negate = true;
      ++i_;
    }
    Ranges all;
    while (true) {
      if (!More()) Refuse("an unclosed character class '['");
      if (Peek() == ']') {
        ++i_;
        break;
      }
      Ranges lo_set;
      bool lo_single = true;
      uint32_t lo;
      if (Peek() == '\\') {
        ++i_;
        Escape(true, lo_set, &lo_single);
        lo = lo_set[0].first;
      } else {
        lo = cps_[i_++];
        lo_set = {{lo, lo}};
      }
      if (Peek() == '-' && Peek(1) != ']' && i_ + 1 < cps_.size()) {
        ++i_;
        Ranges hi_set;
        bool hi_single = true;
        uint32_t hi;
        if (Peek() == '\\') {
          ++i_;
          Escape(true, hi_set, &hi_single);
          hi = hi_set[0].first;
        } else {
          hi = cps_[i_++];
        }
        if (!lo_single || !hi_single) Refuse("a class range with \\d, \\w or \\s as an end (invalid with the u flag)");
        if (hi < lo) Refuse("a class range out of order");
        all.push_back({lo, hi});
      } else {
        all.insert(all.end(), lo_set.begin(), lo_set.end());
      }
    }
    return SetOf(negate ? Complement(all) : all);
  }

  std::vector<uint32_t> cps_;
  size_t i_ = 0;
};

// ---- Thompson NFA

struct Nfa {
  enum EdgeKind : uint8_t { kEps, kAtStart, kAtEnd };
  struct State {
    std::vector<std::pair<EdgeKind, int32_t>> eps;
    std::vector<std::pair<std::pair<uint32_t, uint32_t>, int32_t>> chars;
  };
  std::vector<State> states;
  int32_t start = 0, final = 0;

  int32_t New() {
    if (states.size() >= kMaxNfaStates) Refuse("a pattern too large (over " + std::to_string(kMaxNfaStates) + " automaton states)");
    states.emplace_back();
    return static_cast<int32_t>(states.size() - 1);
  }
  void Eps(int32_t a, int32_t b, EdgeKind k = kEps) { states[static_cast<size_t>(a)].eps.push_back({k, b}); }

  // Builds `a` between fresh states; returns {in, out}.
  std::pair<int32_t, int32_t> Build(const Ast& a) {
    const int32_t in = New(), out = New();
    switch (a.kind) {
      case Ast::kEmpty: Eps(in, out); break;
      case Ast::kStart: Eps(in, out, kAtStart); break;
      case Ast::kEnd: Eps(in, out, kAtEnd); break;
      case Ast::kSet:
        for (auto r : a.set) states[static_cast<size_t>(in)].chars.push_back({r, out});
        break;
      case Ast::kConcat: {
        int32_t at = in;
        for (const Ast& k : a.kids) {
          auto [ki, ko] = Build(k);
          Eps(at, ki);
          at = ko;
        }
        Eps(at, out);
        break;
      }
      case Ast::kAlt:
        for (const Ast& k : a.kids) {
          auto [ki, ko] = Build(k);
          Eps(in, ki);
          Eps(ko, out);
        }
        break;
      case Ast::kRepeat: {
        int32_t at = in;
        for (uint32_t k = 0; k < a.min; ++k) {
          auto [ki, ko] = Build(a.kids[0]);
          Eps(at, ki);
          at = ko;
        }
        if (a.max == UINT32_MAX) {
          auto [ki, ko] = Build(a.kids[0]);
          Eps(at, ki);
          Eps(ko, at);
          Eps(at, out);
        } else {
          for (uint32_t k = a.min; k < a.max; ++k) {
            auto [ki, ko] = Build(a.kids[0]);
            Eps(at, out);
            Eps(at, ki);
            at = ko;
          }
          Eps(at, out);
        }
        break;
      }
    }
    return {in, out};
  }
};

// ---- subset construction

class Determinizer {
 public:
  explicit Determinizer(const Nfa& nfa) : nfa_(nfa) {}

  CodePointDfa Run() {
    std::vector<int32_t> start = Closure({nfa_.start}, true);
    Intern(start, true);
    for (size_t s = 0; s < sets_.size(); ++s) {
      std::vector<std::pair<std::pair<uint32_t, uint32_t>, int32_t>> edges;
      for (int32_t q : sets_[s].first)
        for (const auto& e : nfa_.states[static_cast<size_t>(q)].chars) edges.push_back(e);
      std::vector<uint32_t> cuts;
      for (const auto& e : edges) {
        cuts.push_back(e.first.first);
        cuts.push_back(e.first.second + 1);
      }
      std::sort(cuts.begin(), cuts.end());
      cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
      std::vector<CodePointDfa::Range> out;
      for (size_t k = 0; k + 1 < cuts.size(); ++k) {
        const uint32_t lo = cuts[k], hi = cuts[k + 1] - 1;
        std::vector<int32_t> moved;
        for (const auto& e : edges)
          if (e.first.first <= lo && hi <= e.first.second) moved.push_back(e.second);
        if (moved.empty()) continue;
        const int32_t t = Intern(Closure(moved, false), false);
        if (!out.empty() && out.back().next == t && out.back().hi + 1 == lo) out.back().hi = hi;
        else out.push_back({lo, hi, t});
      }
      trans_.push_back(std::move(out));
    }
    CodePointDfa d;
    for (size_t s = 0; s < sets_.size(); ++s) {
      d.begin.push_back(static_cast<uint32_t>(d.ranges.size()));
      d.ranges.insert(d.ranges.end(), trans_[s].begin(), trans_[s].end());
      std::vector<int32_t> end = sets_[s].first;
      d.accepting.push_back(Contains(ClosureFrom(end, sets_[s].second, true), nfa_.final));
    }
    d.begin.push_back(static_cast<uint32_t>(d.ranges.size()));
    return d;
  }

 private:
  static bool Contains(const std::vector<int32_t>& v, int32_t x) { return std::binary_search(v.begin(), v.end(), x); }

  std::vector<int32_t> Closure(std::vector<int32_t> seeds, bool at_start) { return ClosureFrom(seeds, at_start, false); }

  std::vector<int32_t> ClosureFrom(const std::vector<int32_t>& seeds, bool at_start, bool at_end) {
    std::vector<int32_t> stack, out;
    // seen_[q] == stamp_: visited in this closure (no clearing per call).
    if (seen_.size() != nfa_.states.size()) seen_.assign(nfa_.states.size(), 0);
    const uint32_t mark = ++stamp_;
    for (int32_t q : seeds)
      if (seen_[static_cast<size_t>(q)] != mark) seen_[static_cast<size_t>(q)] = mark, stack.push_back(q);
    while (!stack.empty()) {
      const int32_t q = stack.back();
      stack.pop_back();
      out.push_back(q);
      for (auto [kind, t] : nfa_.states[static_cast<size_t>(q)].eps) {
        if ((kind == Nfa::kAtStart && !at_start) || (kind == Nfa::kAtEnd && !at_end)) continue;
        if (seen_[static_cast<size_t>(t)] != mark) {
          seen_[static_cast<size_t>(t)] = mark;
          stack.push_back(t);
        }
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  int32_t Intern(std::vector<int32_t> set, bool at_start) {
    auto key = std::make_pair(std::move(set), at_start);
    auto it = ids_.find(key);
    if (it != ids_.end()) return it->second;
    if (sets_.size() >= kMaxDfaStates) Refuse("a pattern too complex (over " + std::to_string(kMaxDfaStates) + " automaton states)");
    elements_ += key.first.size();
    if (elements_ > kMaxSubsetElements) Refuse("a pattern too complex (its automaton's states too large)");
    const int32_t id = static_cast<int32_t>(sets_.size());
    sets_.push_back(key);
    ids_.emplace(std::move(key), id);
    return id;
  }

  const Nfa& nfa_;
  std::vector<std::pair<std::vector<int32_t>, bool>> sets_;
  std::map<std::pair<std::vector<int32_t>, bool>, int32_t> ids_;
  std::vector<std::vector<CodePointDfa::Range>> trans_;
  std::vector<uint32_t> seen_;
  uint32_t stamp_ = 0;
  size_t elements_ = 0;
};

void FillAscii(CodePointDfa& d) {
  d.ascii.assign(d.size() * 128, -1);
  for (size_t s = 0; s < d.size(); ++s)
    for (uint32_t r = d.begin[s]; r < d.begin[s + 1]; ++r)
      for (uint32_t c = d.ranges[r].lo; c <= std::min<uint32_t>(d.ranges[r].hi, 127); ++c) d.ascii[s * 128 + c] = d.ranges[r].next;
}

}  // namespace

int32_t CodePointDfa::Next(int32_t s, uint32_t cp) const {
  if (cp < 128) return ascii[static_cast<size_t>(s) * 128 + cp];
  const Range* lo = ranges.data() + begin[static_cast<size_t>(s)];
  const Range* hi = ranges.data() + begin[static_cast<size_t>(s) + 1];
  const Range* it = std::upper_bound(lo, hi, cp, [](uint32_t v, const Range& r) { return v < r.lo; });
  if (it == lo) return -1;
  --it;
  return cp <= it->hi ? it->next : -1;
}

bool CodePointDfa::Matches(const std::u32string& text) const {
  int32_t s = 0;
  for (char32_t c : text) {
    s = Next(s, static_cast<uint32_t>(c));
    if (s < 0) return false;
  }
  return accepting[static_cast<size_t>(s)] != 0;
}

CodePointDfa CompilePattern(const std::string& pattern) {
  Parser p(pattern);
  Ast body = p.Parse();
  // Search semantics: any string around the pattern; ^ and $ are assertion edges.
  Ast any;
  any.kind = Ast::kRepeat;
  any.max = UINT32_MAX;
  any.kids.push_back(Ast{Ast::kSet, All(), {}, 0, 0});
  Ast whole;
  whole.kind = Ast::kConcat;
  whole.kids = {any, std::move(body), any};
  Nfa nfa;
  auto [in, out] = nfa.Build(whole);
  nfa.start = in;
  nfa.final = out;
  CodePointDfa d = Determinizer(nfa).Run();
  FillAscii(d);
  return d;
}

CodePointDfa IntersectDfa(const CodePointDfa& a, const CodePointDfa& b) {
  std::map<std::pair<int32_t, int32_t>, int32_t> ids;
  std::vector<std::pair<int32_t, int32_t>> pairs{{0, 0}};
  ids[{0, 0}] = 0;
  CodePointDfa d;
  for (size_t k = 0; k < pairs.size(); ++k) {
    const auto [sa, sb] = pairs[k];
    d.begin.push_back(static_cast<uint32_t>(d.ranges.size()));
    d.accepting.push_back(a.accepting[static_cast<size_t>(sa)] && b.accepting[static_cast<size_t>(sb)]);
    uint32_t i = a.begin[static_cast<size_t>(sa)], ie = a.begin[static_cast<size_t>(sa) + 1];
    uint32_t j = b.begin[static_cast<size_t>(sb)], je = b.begin[static_cast<size_t>(sb) + 1];
    while (i < ie && j < je) {
      const auto& ra = a.ranges[i];
      const auto& rb = b.ranges[j];
      const uint32_t lo = std::max(ra.lo, rb.lo), hi = std::min(ra.hi, rb.hi);
      if (lo <= hi) {
        auto key = std::make_pair(ra.next, rb.next);
        auto it = ids.find(key);
        int32_t t;
        if (it == ids.end()) {
          if (pairs.size() >= kMaxDfaStates) Refuse("a pattern and format too complex together");
          t = static_cast<int32_t>(pairs.size());
          ids.emplace(key, t);
          pairs.push_back(key);
        } else {
          t = it->second;
        }
        if (d.ranges.size() > d.begin.back() && d.ranges.back().next == t && d.ranges.back().hi + 1 == lo) d.ranges.back().hi = hi;
        else d.ranges.push_back({lo, hi, t});
      }
      if (ra.hi < rb.hi) ++i;
      else ++j;
    }
  }
  d.begin.push_back(static_cast<uint32_t>(d.ranges.size()));
  FillAscii(d);
  return d;
}

// The formats, as patterns (anchored). Each writes a subset of what the format accepts (RFC 3339,
// RFC 4122, RFC 4291, RFC 1123 / 5321), chosen to be inside what ajv-formats' "full" mode accepts:
//   date       YYYY-MM-DD, month 01-12, day within the month, 29 February only in leap years
//   time       hh:mm:ss, optional .fraction (1-9 digits), offset Z or +hh:mm / -hh:mm (hh <= 23);
//              no leap second
//   date-time  date "T" time
//   duration   P with years/months/days and an optional T part (hours/minutes/seconds), at least
//              one component and one after T, or weeks (PnW); digits at most 9 per component
//   uuid       8-4-4-4-12 hex digits (either case), no urn: prefix
//   ipv4       dotted quad, 0-255 without leading zeros
//   ipv6       8 groups of 1-4 hex digits, or fewer around one "::" (no embedded IPv4, no zone)
//   email      a dot-atom local part (letters, digits, !#$%&'*+/=?^_`{|}~-) "@" a domain of at least
//              two labels of letters, digits and inner hyphens, 1-63 characters each
//   hostname   labels as above, one or more, no trailing dot, at most 253 characters in all
bool FormatDfa(const std::string& format, CodePointDfa& out, uint32_t& implied_max) {
  static const std::string date =
      "(?:\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))"
      "|(?:\\d\\d(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)";
  static const std::string time =
      "(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,9})?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)";
  static const std::string h = "[0-9a-fA-F]{1,4}";
  static const std::string label = "[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?";
  static const std::string n = "\\d{1,9}";
  static const std::map<std::string, std::string> patterns = {
      {"date", date},
      {"time", time},
      {"date-time", date + "T" + time},
      {"duration", "P(?:(?:" + n + "Y(?:" + n + "M)?(?:" + n + "D)?|" + n + "M(?:" + n + "D)?|" + n + "D)(?:T(?:" + n + "H(?:" +
                       n + "M)?(?:" + n + "S)?|" + n + "M(?:" + n + "S)?|" + n + "S))?|T(?:" + n + "H(?:" + n + "M)?(?:" + n +
                       "S)?|" + n + "M(?:" + n + "S)?|" + n + "S)|" + n + "W)"},
      {"uuid", "[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}"},
      {"ipv4", "(?:(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)"},
      {"ipv6", "(?:(?:" + h + ":){7}" + h + "|(?:" + h + ":){1,7}:|(?:" + h + ":){1,6}:" + h + "|(?:" + h + ":){1,5}(?::" + h +
                   "){1,2}|(?:" + h + ":){1,4}(?::" + h + "){1,3}|(?:" + h + ":){1,3}(?::" + h + "){1,4}|(?:" + h +
                   ":){1,2}(?::" + h + "){1,5}|" + h + ":(?::" + h + "){1,6}|:(?:(?::" + h + "){1,7}|:))"},
      {"email", "[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:" + label + "\\.)+" + label},
      {"hostname", label + "(?:\\." + label + ")*"},
  };
  auto it = patterns.find(format);
  if (it == patterns.end()) return false;
  static std::mutex mu;
  static std::map<std::string, CodePointDfa> compiled;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto c = compiled.find(format);
    if (c == compiled.end()) c = compiled.emplace(format, CompilePattern("^" + it->second + "$")).first;
    out = c->second;
  }
  if (format == "hostname") implied_max = std::min<uint32_t>(implied_max, 253);
  return true;
}

const std::vector<std::string>& SupportedFormats() {
  static const std::vector<std::string> f = {"date", "time", "date-time", "duration", "uuid", "ipv4", "ipv6", "email", "hostname"};
  return f;
}

bool StringRule::AnyLiveIn(int32_t s, uint32_t lo, uint32_t hi, uint32_t count) const {
  const auto* r = dfa.ranges.data() + dfa.begin[static_cast<size_t>(s)];
  const auto* e = dfa.ranges.data() + dfa.begin[static_cast<size_t>(s) + 1];
  for (; r != e; ++r) {
    if (r->hi < lo) continue;
    if (r->lo > hi) break;
    if (Live(r->next, count)) return true;
  }
  return false;
}

void FinishStringRule(StringRule& rule) {
  const size_t n = rule.dfa.size();
  rule.levels = rule.has_max() ? rule.max_length : rule.min_length;
  const size_t L = rule.levels + 1;
  if ((rule.dfa.ranges.size() + n) * L > kMaxLiveCells)
    Refuse("the length bound " + std::to_string(rule.levels) + " with this pattern or format (too many states to track)");
  rule.live.assign(n * L, 0);
  auto at = [&](size_t s, size_t c) -> uint8_t& { return rule.live[s * L + c]; };
  auto any_next_live = [&](size_t s, size_t c) {
    for (uint32_t r = rule.dfa.begin[s]; r < rule.dfa.begin[s + 1]; ++r)
      if (at(static_cast<size_t>(rule.dfa.ranges[r].next), c)) return true;
    return false;
  };
  size_t top = rule.levels;
  if (!rule.has_max()) {
    // The saturated level: reaching an accepting state at all (backwards from them).
    std::vector<std::vector<uint32_t>> into(n);
    for (size_t s = 0; s < n; ++s)
      for (uint32_t r = rule.dfa.begin[s]; r < rule.dfa.begin[s + 1]; ++r)
        into[static_cast<size_t>(rule.dfa.ranges[r].next)].push_back(static_cast<uint32_t>(s));
    std::vector<uint32_t> todo;
    for (size_t s = 0; s < n; ++s)
      if (rule.dfa.accepting[s]) at(s, top) = 1, todo.push_back(static_cast<uint32_t>(s));
    while (!todo.empty()) {
      const uint32_t t = todo.back();
      todo.pop_back();
      for (uint32_t s : into[t])
        if (!at(s, top)) at(s, top) = 1, todo.push_back(s);
    }
  } else {
    for (size_t s = 0; s < n; ++s) at(s, top) = rule.dfa.accepting[s] && top >= rule.min_length;
  }
  for (size_t c = top; c-- > 0;)
    for (size_t s = 0; s < n; ++s) at(s, c) = (rule.dfa.accepting[s] && c >= rule.min_length) || any_next_live(s, c + 1);
  // Universal: accepting, every code point has a move, and every move stays universal.
  const uint64_t scalars = 0x110000 - 0x800;
  rule.universal.assign(n, 0);
  for (size_t s = 0; s < n; ++s) {
    uint64_t covered = 0;
    for (uint32_t r = rule.dfa.begin[s]; r < rule.dfa.begin[s + 1]; ++r) covered += rule.dfa.ranges[r].hi - rule.dfa.ranges[r].lo + 1;
    rule.universal[s] = rule.dfa.accepting[s] && covered == scalars;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t s = 0; s < n; ++s) {
      if (!rule.universal[s]) continue;
      for (uint32_t r = rule.dfa.begin[s]; r < rule.dfa.begin[s + 1]; ++r)
        if (!rule.universal[static_cast<size_t>(rule.dfa.ranges[r].next)]) {
          rule.universal[s] = 0;
          changed = true;
          break;
        }
    }
  }
}

}  // namespace glance::text
