#include "core/text/jinja_generation_prompt.h"

#include <cctype>
#include <string>
#include <vector>

#include "core/util/error.h"

namespace glance::text {
namespace {

enum class EnableThinking { kUnset = 0, kFalse = 1, kTrue = 2 };

struct Segment {
  enum Kind { kRaw, kExpr, kStmt } kind;
  std::string text;  // tag contents without delimiters, '-'/'+' markers and outer spaces
};

std::string Strip(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

// Splits template text into raw text and {{ }} / {% %} tags ({# #} comments dropped).
// Quotes inside tags are respected so that a literal containing "%}" does not end the tag.
std::vector<Segment> Lex(const std::string& t, const std::string& src) {
  std::vector<Segment> out;
  size_t pos = 0;
  while (pos < t.size()) {
    const size_t open = t.find('{', pos);
    if (open == std::string::npos || open + 1 >= t.size()) {
      out.push_back({Segment::kRaw, t.substr(pos)});
      break;
    }
    const char k = t[open + 1];
    if (k != '{' && k != '%' && k != '#') {
      out.push_back({Segment::kRaw, t.substr(pos, open + 1 - pos)});
      pos = open + 1;
      continue;
    }
    if (open > pos) out.push_back({Segment::kRaw, t.substr(pos, open - pos)});
    const char close = k == '{' ? '}' : k;
    size_t i = open + 2;
    char quote = 0;
    for (; i + 1 < t.size(); ++i) {
      if (quote) {
        if (t[i] == '\\') ++i;
        else if (t[i] == quote) quote = 0;
      } else if ((t[i] == '\'' || t[i] == '"') && k != '#') {
        quote = t[i];
      } else if (t[i] == close && t[i + 1] == '}') {
        break;
      }
    }
    if (i + 1 >= t.size()) throw Error(src + ": chat template has an unterminated tag");
    std::string inner = t.substr(open + 2, i - open - 2);
    if (!inner.empty() && (inner.front() == '-' || inner.front() == '+')) inner.erase(0, 1);
    if (!inner.empty() && (inner.back() == '-' || inner.back() == '+')) inner.pop_back();
    if (k != '#') out.push_back({k == '{' ? Segment::kExpr : Segment::kStmt, Strip(inner)});
    pos = i + 2;
  }
  return out;
}

// Tokens of a condition or expression: identifiers, string literals, operators.
struct Tok {
  enum Kind { kIdent, kString, kOp, kEnd } kind;
  std::string text;
};

std::vector<Tok> Tokenize(const std::string& s, const std::string& src) {
  std::vector<Tok> out;
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
      out.push_back({Tok::kIdent, s.substr(i, j - i)});
      i = j;
    } else if (c == '\'' || c == '"') {
      std::string lit;
      size_t j = i + 1;
      for (; j < s.size() && s[j] != c; ++j) {
        if (s[j] == '\\' && j + 1 < s.size()) {
          const char e = s[++j];
          lit += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;  // \\ \' \" keep e
        } else {
          lit += s[j];
        }
      }
      if (j >= s.size()) throw Error(src + ": unterminated string literal in chat template");
      out.push_back({Tok::kString, lit});
      i = j + 1;
    } else if ((c == '=' || c == '!') && i + 1 < s.size() && s[i + 1] == '=') {
      out.push_back({Tok::kOp, s.substr(i, 2)});
      i += 2;
    } else if (c == '(' || c == ')' || c == '+') {
      out.push_back({Tok::kOp, std::string(1, c)});
      ++i;
    } else {
      throw Error(src + ": unsupported character '" + std::string(1, c) +
                  "' in the chat template's generation prompt: " + s);
    }
  }
  out.push_back({Tok::kEnd, ""});
  return out;
}

// Recursive-descent evaluation of a Jinja condition for one enable_thinking state.
class Condition {
 public:
  Condition(const std::string& text, EnableThinking state, const std::string& src)
      : toks_(Tokenize(text, src)), state_(state), text_(text), src_(src) {}

  bool Eval() {
    const bool v = Or();
    if (toks_[i_].kind != Tok::kEnd) Unsupported();
    return v;
  }

 private:
  [[noreturn]] void Unsupported() const {
    throw Error(src_ + ": cannot evaluate the generation-prompt condition '" + text_ +
                "' (only conditions on enable_thinking are understood)");
  }
  bool Accept(const std::string& t) {
    if (toks_[i_].kind != Tok::kEnd && toks_[i_].text == t) {
      ++i_;
      return true;
    }
    return false;
  }
  bool Or() {
    bool v = And();
    while (Accept("or")) v = And() || v;
    return v;
  }
  bool And() {
    bool v = Not();
    while (Accept("and")) v = Not() && v;
    return v;
  }
  // Nesting (parentheses, chained `not`) is bounded: each level is a few stack frames, and a
  // template from a stranger could nest thousands deep (found by fuzz_chat_template: a stack
  // overflow at ~10,000 open parentheses under ASan). Real templates nest one or two levels.
  static constexpr int kMaxDepth = 64;
  struct DepthGuard {
    Condition& c;
    explicit DepthGuard(Condition& cond) : c(cond) {
      if (++c.depth_ > kMaxDepth)
        throw Error(c.src_ + ": the generation-prompt condition nests deeper than " +
                    std::to_string(kMaxDepth) + " levels");
    }
    ~DepthGuard() { --c.depth_; }
  };
  bool Not() {
    const DepthGuard guard(*this);
    return Accept("not") ? !Not() : Primary();
  }
  bool Primary() {
    if (Accept("(")) {
      const DepthGuard guard(*this);
      const bool v = Or();
      if (!Accept(")")) Unsupported();
      return v;
    }
    if (Accept("true") || Accept("True")) return true;
    if (Accept("false") || Accept("False")) return false;
    if (!Accept("enable_thinking")) Unsupported();
    if (Accept("is")) {
      const bool negate = Accept("not");
      bool v;
      if (Accept("defined")) v = state_ != EnableThinking::kUnset;
      else if (Accept("undefined")) v = state_ == EnableThinking::kUnset;
      else if (Accept("true") || Accept("True")) v = state_ == EnableThinking::kTrue;
      else if (Accept("false") || Accept("False")) v = state_ == EnableThinking::kFalse;
      else if (Accept("none") || Accept("None")) v = false;
      else Unsupported();
      return negate ? !v : v;
    }
    for (const char* op : {"==", "!="}) {
      if (!Accept(op)) continue;
      bool rhs;
      if (Accept("true") || Accept("True")) rhs = true;
      else if (Accept("false") || Accept("False")) rhs = false;
      else Unsupported();
      // Undefined equals neither true nor false in Jinja.
      const bool eq = state_ != EnableThinking::kUnset && (state_ == EnableThinking::kTrue) == rhs;
      return std::string(op) == "==" ? eq : !eq;
    }
    return state_ == EnableThinking::kTrue;  // truthiness; undefined is falsy
  }

  std::vector<Tok> toks_;
  size_t i_ = 0;
  int depth_ = 0;
  EnableThinking state_;
  const std::string& text_;
  const std::string& src_;
};

std::string FirstWord(const std::string& s) {
  size_t j = 0;
  while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
  return s.substr(0, j);
}

std::string Rest(const std::string& s) { return Strip(s.substr(FirstWord(s).size())); }

// Output of one `{{ ... }}`: string literals joined by '+'.
std::string Literal(const std::string& expr, const std::string& src) {
  const auto toks = Tokenize(expr, src);
  std::string out;
  for (size_t i = 0; toks[i].kind != Tok::kEnd; ++i) {
    if (i % 2 == 0 ? toks[i].kind != Tok::kString : toks[i].text != "+")
      throw Error(src + ": the generation prompt outputs '" + expr +
                  "', which is not a string literal; cannot render it");
    if (i % 2 == 0) out += toks[i].text;
  }
  return out;
}

std::string Evaluate(const std::vector<Segment>& segs, size_t start, EnableThinking state,
                     const std::string& src) {
  struct Frame {
    bool parent_active, taken, active;
  };
  // stack[0] is the add_generation_prompt block itself (segs[start]), taken as true.
  std::vector<Frame> stack{{true, true, true}};
  std::string out;
  for (size_t i = start + 1; i < segs.size(); ++i) {
    const Segment& s = segs[i];
    const bool active = stack.back().active;
    if (s.kind == Segment::kRaw) {
      if (active && !Strip(s.text).empty())
        throw Error(src + ": unexpected raw text in the generation prompt: '" + s.text + "'");
      continue;
    }
    if (s.kind == Segment::kExpr) {
      if (active) out += Literal(s.text, src);
      continue;
    }
    const std::string word = FirstWord(s.text);
    // endif/else/elif of the add_generation_prompt block ends what it emits when true.
    if (stack.size() == 1 && (word == "endif" || word == "else" || word == "elif")) return out;
    if (word == "if") {
      const bool v = active && Condition(Rest(s.text), state, src).Eval();
      stack.push_back({active, v, v});
    } else if (word == "elif") {
      Frame& f = stack.back();
      const bool v = f.parent_active && !f.taken && Condition(Rest(s.text), state, src).Eval();
      f.active = v;
      f.taken = f.taken || v;
    } else if (word == "else") {
      Frame& f = stack.back();
      f.active = f.parent_active && !f.taken;
      f.taken = true;
    } else if (word == "endif") {
      stack.pop_back();
    } else {
      throw Error(src + ": unsupported statement '{% " + s.text +
                  " %}' inside the chat template's generation prompt");
    }
  }
  throw Error(src + ": the chat template's add_generation_prompt block has no matching endif");
}

}  // namespace

std::array<std::string, 3> EvaluateGenerationPrompt(const std::string& jinja_text,
                                                     const std::string& source_name) {
  const auto segs = Lex(jinja_text, source_name);
  size_t start = segs.size();
  for (size_t i = 0; i < segs.size(); ++i)
    if (segs[i].kind == Segment::kStmt && FirstWord(segs[i].text) == "if" &&
        Rest(segs[i].text) == "add_generation_prompt") {
      start = i;
      break;
    }
  if (start == segs.size())
    throw Error(source_name + ": chat template has no '{% if add_generation_prompt %}' block");
  std::array<std::string, 3> out;
  for (int s = 0; s < 3; ++s)
    out[static_cast<size_t>(s)] = Evaluate(segs, start, static_cast<EnableThinking>(s), source_name);
  return out;
}

}  // namespace glance::text
