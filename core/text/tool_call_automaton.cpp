#include "core/text/tool_call_automaton.h"

#include <nlohmann/json.hpp>

#include "core/text/json_grammar.h"
#include "core/util/error.h"

namespace glance::text {
namespace {

using nlohmann::ordered_json;

// The fixed texts between the parts a model chooses.
enum Literal : uint8_t {
  kOpen,          // the first call's opening, then the name
  kAfterName,     // after "<function=NAME>"
  kParameterEq,   // "<parameter=" ('<' read in kParamOrEnd), then the key
  kCloseCall,     // "</function>\n</tool_call>" ('<' read in kParamOrEnd)
  kAfterKey,      // after "<parameter=KEY>", then the value
  kAfterString,   // after a string value's "</parameter>"
  kCloseJson,     // after a JSON value's "\n"
  kNextCall,      // another call's opening
};
constexpr const char* kLiterals[] = {"<tool_call>\n<function=", "\n", "<parameter=", "</function>\n</tool_call>",
                                     "\n", "\n", "</parameter>\n", "\n<tool_call>\n<function="};
constexpr const char kEndParameter[] = "</parameter>";
constexpr size_t kEndParameterLen = sizeof kEndParameter - 1;

bool IsPrefix(const std::string& p, const std::string& s) { return s.compare(0, p.size(), p) == 0; }

}  // namespace

std::string ToolCallState::Key() const {
  std::string k;
  auto put = [&](const void* p, size_t n) { k.append(static_cast<const char*>(p), n); };
  put(&phase, sizeof phase);
  put(&literal, sizeof literal);
  put(&pos, sizeof pos);
  put(&function, sizeof function);
  put(&param, sizeof param);
  put(&calls, sizeof calls);
  put(&used, sizeof used);
  const uint32_t n = static_cast<uint32_t>(typed.size());
  put(&n, sizeof n);
  k += typed;
  if (phase == kJsonValue) {
    k += json.Key();
    put(json.ends.data(), json.ends.size() * sizeof(uint32_t));
  }
  return k;
}

ToolCallAutomaton::ToolCallAutomaton(const std::vector<std::string>& tools, const std::string& only, int max_calls)
    : max_calls_(std::max(1, max_calls)) {
  for (size_t i = 0; i < tools.size(); ++i) {
    const std::string where = "tools[" + std::to_string(i) + "]";
    const ordered_json t = ordered_json::parse(tools[i], nullptr, false);
    if (t.is_discarded() || !t.is_object()) throw Error(where + " is not a JSON object");
    const ordered_json& f = t.contains("function") ? t["function"] : t;
    if (!f.is_object() || !f.contains("name") || !f["name"].is_string()) throw Error(where + " has no function name");
    Function fn;
    fn.name = f["name"].get<std::string>();
    if (!only.empty() && fn.name != only) continue;
    const ordered_json params = f.contains("parameters") && f["parameters"].is_object() ? f["parameters"] : ordered_json::object();
    std::vector<std::string> required;
    if (params.contains("required") && params["required"].is_array())
      for (const auto& r : params["required"])
        if (r.is_string()) required.push_back(r.get<std::string>());
    if (params.contains("properties") && params["properties"].is_object()) {
      for (auto it = params["properties"].begin(); it != params["properties"].end(); ++it) {
        const std::string pw = where + ".function.parameters.properties." + it.key();
        if (fn.params.size() >= 64) throw Error(where + ": more than 64 parameters cannot be constrained");
        if (it.key().empty() || it.key().find_first_of(">\n") != std::string::npos)
          throw Error(pw + ": a parameter name with '>' or a line break cannot be written in the call format");
        Param p;
        p.key = it.key();
        p.required = std::find(required.begin(), required.end(), p.key) != required.end();
        const ordered_json& schema = it.value();
        p.is_string = schema.is_object() && schema.contains("type") && schema["type"] == "string";
        if (!p.is_string) {
          try {
            p.value = std::make_shared<const JsonAutomaton>(CompileJsonSchemaText(schema.dump(), pw));
          } catch (const Error& e) {
            throw Error(pw + ": " + e.what());
          }
        }
        if (p.required) fn.required |= uint64_t{1} << fn.params.size();
        fn.params.push_back(std::move(p));
      }
    }
    for (const std::string& r : required)
      if (std::none_of(fn.params.begin(), fn.params.end(), [&](const Param& p) { return p.key == r; }))
        throw Error(where + ": required parameter '" + r + "' is not in its properties");
    functions_.push_back(std::move(fn));
  }
  if (functions_.empty()) throw Error(only.empty() ? "no tools to call" : "no tool named '" + only + "'");
}

ToolCallState ToolCallAutomaton::Start() const { return ToolCallState{}; }

void ToolCallAutomaton::Step(const ToolCallState& in, uint8_t byte, ToolCallState& out) const {
  out = in;
  auto dead = [&] { out.phase = ToolCallState::kDead; };
  auto enter = [&](Literal l, uint16_t pos) {
    out.phase = ToolCallState::kLiteral;
    out.literal = l;
    out.pos = pos;
  };
  const char c = static_cast<char>(byte);
  switch (in.phase) {
    case ToolCallState::kDead:
      return;
    case ToolCallState::kLiteral: {
      const std::string_view lit = kLiterals[in.literal];
      if (lit[in.pos] != c) return dead();
      out.pos = static_cast<uint16_t>(in.pos + 1);
      if (out.pos < lit.size()) return;
      switch (in.literal) {  // the literal is complete
        case kOpen:
        case kNextCall:
          out.phase = ToolCallState::kName;
          out.typed.clear();
          out.function = -1;
          out.used = 0;
          return;
        case kAfterName:
        case kAfterString:
          out.phase = ToolCallState::kParamOrEnd;
          out.pos = 0;
          return;
        case kCloseJson:
          out.phase = ToolCallState::kParamOrEnd;
          out.pos = 0;
          out.json = JsonState{};
          return;
        case kParameterEq:
          out.phase = ToolCallState::kKey;
          out.typed.clear();
          return;
        case kCloseCall:
          out.phase = ToolCallState::kAfterCall;
          out.calls = static_cast<uint16_t>(in.calls + 1);
          return;
        case kAfterKey: {
          const Param& p = functions_[static_cast<size_t>(in.function)].params[static_cast<size_t>(in.param)];
          out.pos = 0;
          if (p.is_string) {
            out.phase = ToolCallState::kStringValue;
          } else {
            out.phase = ToolCallState::kJsonValue;
            out.json = p.value->Start();
          }
          return;
        }
      }
      return dead();
    }
    case ToolCallState::kName: {
      if (c == '>') {
        for (size_t f = 0; f < functions_.size(); ++f)
          if (functions_[f].name == in.typed) {
            out.function = static_cast<int16_t>(f);
            out.typed.clear();
            return enter(kAfterName, 0);
          }
        return dead();
      }
      out.typed += c;
      for (const Function& f : functions_)
        if (IsPrefix(out.typed, f.name)) return;
      return dead();
    }
    case ToolCallState::kParamOrEnd: {
      const Function& f = functions_[static_cast<size_t>(in.function)];
      if (in.pos == 0) {
        if (c != '<') return dead();
        out.pos = 1;
        return;
      }
      const uint64_t all = f.params.size() >= 64 ? ~uint64_t{0} : (uint64_t{1} << f.params.size()) - 1;
      if (c == 'p' && (in.used & all) != all) return enter(kParameterEq, 2);
      if (c == '/' && (in.used & f.required) == f.required) return enter(kCloseCall, 2);
      return dead();
    }
    case ToolCallState::kKey: {
      const Function& f = functions_[static_cast<size_t>(in.function)];
      if (c == '>') {
        for (size_t p = 0; p < f.params.size(); ++p)
          if (!((in.used >> p) & 1u) && f.params[p].key == in.typed) {
            out.param = static_cast<int16_t>(p);
            out.used |= uint64_t{1} << p;
            out.typed.clear();
            return enter(kAfterKey, 0);
          }
        return dead();
      }
      out.typed += c;
      for (size_t p = 0; p < f.params.size(); ++p)
        if (!((in.used >> p) & 1u) && IsPrefix(out.typed, f.params[p].key)) return;
      return dead();
    }
    case ToolCallState::kStringValue: {
      // Any text up to the first "</parameter>" ('<' appears only at its start).
      if (c == kEndParameter[in.pos]) {
        out.pos = static_cast<uint16_t>(in.pos + 1);
        if (out.pos == kEndParameterLen) enter(kAfterString, 0);
      } else {
        out.pos = c == '<' ? 1 : 0;
      }
      return;
    }
    case ToolCallState::kJsonValue: {
      const Param& p = functions_[static_cast<size_t>(in.function)].params[static_cast<size_t>(in.param)];
      if (c == '\n' && p.value->CanEnd(in.json)) return enter(kCloseJson, 0);
      p.value->Step(in.json, byte, out.json);
      if (out.json.dead()) dead();
      return;
    }
    case ToolCallState::kAfterCall:
      if (c == '\n' && in.calls < max_calls_) return enter(kNextCall, 1);
      return dead();
  }
}

bool ToolCallAutomaton::Feed(ToolCallState& s, const std::string& text) const {
  ToolCallState next;
  for (unsigned char b : text) {
    Step(s, b, next);
    std::swap(s, next);
    if (s.dead()) return false;
  }
  return true;
}

bool ToolCallAutomaton::Accepts(const std::string& text) const {
  ToolCallState s = Start();
  return Feed(s, text) && CanEnd(s);
}

}  // namespace glance::text
