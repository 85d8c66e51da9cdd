// JSON Schema (OpenAI's strict-mode subset) -> JsonGrammar (json_grammar.h). The keyword list
// and what each means follow JSON Schema 2020-12 (json-schema.org/draft/2020-12
// json-schema-validation.html) restricted to what OpenAI's Structured Outputs document as
// supported; anything else is refused by name.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/text/json_grammar.h"
#include "core/util/error.h"

namespace glance::text {
namespace {

using json = nlohmann::json;
using Kind = GrammarNode::Kind;

constexpr int kMaxSchemaDepth = 64;
constexpr size_t kMaxNodes = 20000;

// Keywords read; the annotations among them change nothing.
const std::set<std::string> kKnown = {"type", "properties", "required", "additionalProperties", "items",
                                      "minItems", "maxItems", "enum", "const", "anyOf", "$ref", "$defs",
                                      "definitions", "title", "description", "$comment", "examples",
                                      "default", "$schema", "$id", "minimum", "maximum", "exclusiveMinimum",
                                      "exclusiveMaximum", "pattern", "format", "minLength", "maxLength"};
const std::set<std::string> kAnnotations = {"title", "description", "$comment", "examples", "default", "$schema",
                                            "$id", "$defs", "definitions"};

std::string Where(const std::string& path) { return "JSON schema at " + path; }

[[noreturn]] void Fail(const std::string& path, const std::string& what) { throw Error(Where(path) + ": " + what); }

// JSON Pointer escaping of one key (RFC 6901).
std::string PointerKey(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

bool LiteralHasType(const json& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "null") return v.is_null();
  if (type == "number") return v.is_number();
  if (type == "integer") {
    if (v.is_number_integer()) return true;
    if (!v.is_number_float()) return false;
    const double d = v.get<double>();
    return d == static_cast<double>(static_cast<int64_t>(d));
  }
  return false;
}

class Compiler {
 public:
  // Keeps a reference to `root`: a temporary would dangle (AnyJsonObjectGrammar passed one; the
  // fuzz smoke's ASan build found it as a stack-use-after-scope).
  explicit Compiler(json&&) = delete;
  explicit Compiler(const json& root) : root_(root) {
    auto& n = g_.nodes;
    n.resize(6);
    n[JsonGrammar::kAnyValue].kind = Kind::kAnyOf;
    n[JsonGrammar::kAnyValue].alternatives = {JsonGrammar::kAnyObjectNode, JsonGrammar::kAnyArrayNode,
                                              JsonGrammar::kStringNode, JsonGrammar::kNumberNode,
                                              JsonGrammar::kTrueFalseNull};
    n[JsonGrammar::kAnyObjectNode].kind = Kind::kAnyObject;
    n[JsonGrammar::kAnyArrayNode].kind = Kind::kAnyArray;
    n[JsonGrammar::kAnyArrayNode].items = JsonGrammar::kAnyValue;
    n[JsonGrammar::kStringNode].kind = Kind::kString;
    n[JsonGrammar::kNumberNode].kind = Kind::kNumber;
    n[JsonGrammar::kTrueFalseNull].kind = Kind::kLiterals;
    n[JsonGrammar::kTrueFalseNull].literals = {"false", "null", "true"};
  }

  std::shared_ptr<const JsonGrammar> Run() {
    if (!root_.is_object() && !root_.is_boolean()) Fail("#", "a schema must be an object (found " + Shown(root_) + ")");
    root_slot_ = NewNode(Kind::kAnyOf, "#");
    for (const char* defs_key : {"$defs", "definitions"}) {
      if (!root_.is_object() || !root_.contains(defs_key)) continue;
      const json& defs = root_.at(defs_key);
      if (!defs.is_object()) Fail(std::string("#/") + defs_key, "must be an object of named schemas");
      for (auto it = defs.begin(); it != defs.end(); ++it)
        def_slots_[std::string("#/") + defs_key + "/" + PointerKey(it.key())] = {NewNode(Kind::kAnyOf, "#"), &it.value()};
    }
    SetAlias(root_slot_, Compile(root_, "#", 0));
    for (auto& [path, def] : def_slots_)
      if (!def.compiled) {
        def.compiled = true;
        SetAlias(def.slot, Compile(*def.schema, path, 1));
      }
    FlattenAnyOf();
    Prune();
    g_.root = root_slot_;
    return std::make_shared<const JsonGrammar>(std::move(g_));
  }

 private:
  struct Def {
    int32_t slot = 0;
    const json* schema = nullptr;
    bool compiled = false;
  };

  static std::string Shown(const json& v) {
    std::string s = v.dump();
    return s.size() > 60 ? s.substr(0, 60) + "..." : s;
  }

  int32_t NewNode(Kind kind, const std::string& path) {
    if (g_.nodes.size() >= kMaxNodes) Fail(path, "the schema is too large (over " + std::to_string(kMaxNodes) + " nodes)");
    g_.nodes.emplace_back();
    g_.nodes.back().kind = kind;
    return static_cast<int32_t>(g_.nodes.size() - 1);
  }

  void SetAlias(int32_t slot, int32_t target) { g_.nodes[static_cast<size_t>(slot)].alternatives = {target}; }

  int32_t Ref(const json& ref, const std::string& path) {
    if (!ref.is_string()) Fail(path, "'$ref' must be a string");
    const std::string r = ref.get<std::string>();
    if (r == "#") return root_slot_;
    auto it = def_slots_.find(r);
    if (it == def_slots_.end())
      Fail(path, "'$ref' " + r + " does not name a schema of the root's $defs or definitions (only \"#\", \"#/$defs/NAME\" and \"#/definitions/NAME\" are supported)");
    return it->second.slot;  // compiled once, at the end of Run
  }

  int32_t Compile(const json& s, const std::string& path, int depth) {
    if (depth > kMaxSchemaDepth) Fail(path, "the schema nests deeper than " + std::to_string(kMaxSchemaDepth) + " levels");
    if (s.is_boolean()) {
      if (!s.get<bool>()) Fail(path, "the schema 'false' accepts nothing");
      return JsonGrammar::kAnyValue;
    }
    if (!s.is_object()) Fail(path, "a schema must be an object (found " + Shown(s) + ")");
    for (auto it = s.begin(); it != s.end(); ++it)
      if (!kKnown.count(it.key()))
        Fail(path, "keyword '" + it.key() + "' is not supported (supported: type, properties, required, "
                   "additionalProperties false, items, minItems, maxItems, enum, const, anyOf, $ref, $defs, "
                   "pattern, format, minLength, maxLength)");
    if ((s.contains("$defs") || s.contains("definitions")) && depth > 0)
      Fail(path, "$defs are only read at the schema's root");
    std::vector<std::string> constraining;
    for (auto it = s.begin(); it != s.end(); ++it)
      if (!kAnnotations.count(it.key())) constraining.push_back(it.key());
    auto only = [&](const char* key) {
      for (const std::string& k : constraining)
        if (k != key) Fail(path, "'" + std::string(key) + "' together with '" + k + "' is not supported");
    };
    if (s.contains("$ref")) {
      only("$ref");
      return Ref(s.at("$ref"), path);
    }
    if (s.contains("anyOf")) {
      only("anyOf");
      const json& alts = s.at("anyOf");
      if (!alts.is_array() || alts.empty()) Fail(path + "/anyOf", "must be a non-empty array of schemas");
      const int32_t id = NewNode(Kind::kAnyOf, path);
      std::vector<int32_t> out;
      for (size_t i = 0; i < alts.size(); ++i) out.push_back(Compile(alts[i], path + "/anyOf/" + std::to_string(i), depth + 1));
      g_.nodes[static_cast<size_t>(id)].alternatives = std::move(out);
      return id;
    }
    std::vector<std::string> types;
    if (s.contains("type")) {
      const json& t = s.at("type");
      const std::set<std::string> valid = {"object", "array", "string", "number", "integer", "boolean", "null"};
      auto add = [&](const json& v) {
        if (!v.is_string() || !valid.count(v.get<std::string>()))
          Fail(path + "/type", Shown(v) + " is not a JSON Schema type (object, array, string, number, integer, boolean, null)");
        if (std::find(types.begin(), types.end(), v.get<std::string>()) == types.end()) types.push_back(v.get<std::string>());
      };
      if (t.is_array()) {
        if (t.empty()) Fail(path + "/type", "an empty list of types accepts nothing");
        for (const json& v : t) add(v);
      } else {
        add(t);
      }
    }
    CheckIntegerBounds(s, path, types);
    // A format is checked on strings only (validators skip other types for the string formats);
    // a format this grammar does not write exactly — numeric ones such as int32 included — is
    // refused whatever the type, never ignored.
    if (s.contains("format")) {
      const json& f = s.at("format");
      const auto& known = SupportedFormats();
      if (!f.is_string() || std::find(known.begin(), known.end(), f.get<std::string>()) == known.end()) {
        std::string supported;
        for (const std::string& k : known) supported += (supported.empty() ? "" : ", ") + k;
        Fail(path + "/format", "keyword 'format' " + Shown(f) + " is not supported (supported: " + supported + ")");
      }
    }
    if (s.contains("enum") || s.contains("const")) return Literals(s, path, types);
    if (types.empty()) {
      // No type: what the keywords imply, else any value.
      if (s.contains("properties") || s.contains("required") || s.contains("additionalProperties")) types = {"object"};
      else if (s.contains("items") || s.contains("minItems") || s.contains("maxItems")) types = {"array"};
      else if (s.contains("pattern") || s.contains("format") || s.contains("minLength") || s.contains("maxLength")) types = {"string"};
      else return JsonGrammar::kAnyValue;
    }
    if (types.size() == 1) return Typed(s, path, types[0], depth);
    const int32_t id = NewNode(Kind::kAnyOf, path);
    std::vector<int32_t> alts;
    for (const std::string& t : types) alts.push_back(Typed(s, path, t, depth));
    g_.nodes[static_cast<size_t>(id)].alternatives = std::move(alts);
    return id;
  }

  int32_t Literals(const json& s, const std::string& path, const std::vector<std::string>& types) {
    if (s.contains("enum") && s.contains("const")) Fail(path, "'enum' together with 'const' is not supported");
    for (const char* k : {"properties", "required", "additionalProperties", "items", "minItems", "maxItems", "pattern",
                          "format", "minLength", "maxLength"})
      if (s.contains(k)) Fail(path, std::string("'") + (s.contains("enum") ? "enum" : "const") + "' together with '" + k + "' is not supported");
    std::vector<json> values;
    if (s.contains("const")) {
      values.push_back(s.at("const"));
    } else {
      const json& e = s.at("enum");
      if (!e.is_array() || e.empty()) Fail(path + "/enum", "must be a non-empty array");
      values.assign(e.begin(), e.end());
    }
    std::set<std::string> texts;
    for (const json& v : values) {
      bool ok = types.empty();
      for (const std::string& t : types) ok = ok || LiteralHasType(v, t);
      if (ok) texts.insert(v.dump());
    }
    if (texts.empty()) Fail(path, "no value of 'enum'/'const' has the schema's type");
    const int32_t id = NewNode(Kind::kLiterals, path);
    g_.nodes[static_cast<size_t>(id)].literals.assign(texts.begin(), texts.end());  // std::set: sorted, distinct
    return id;
  }

  // minimum/maximum (and the exclusive forms) are taken only on integers, and only where every
  // integer the grammar writes (at most kMaxIntegerDigits digits) meets them — as the safe-integer
  // bounds zod's .int() adds do. Any tighter bound would need the digits constrained: refused.
  static void CheckIntegerBounds(const json& s, const std::string& path, const std::vector<std::string>& types) {
    const double reach = std::pow(10.0, kMaxIntegerDigits) - 1.0;
    for (const char* key : {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}) {
      if (!s.contains(key)) continue;
      const std::string k = key;
      if (types != std::vector<std::string>{"integer"})
        Fail(path, "keyword '" + k + "' is only supported on type integer (as a bound every 15-digit integer meets)");
      const json& v = s.at(key);
      if (!v.is_number()) Fail(path + "/" + k, "must be a number");
      const double x = v.get<double>();
      const bool lower = k == "minimum" || k == "exclusiveMinimum";
      if (lower ? x > -reach : x < reach)
        Fail(path, "keyword '" + k + "' " + v.dump() + " is not supported: only bounds every integer of up to " +
                       std::to_string(kMaxIntegerDigits) + " digits meets (such as +-9007199254740991) are");
    }
  }

  static uint32_t Count(const json& s, const char* key, const std::string& path) {
    const json& v = s.at(key);
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 1000000)
      Fail(path + "/" + key, "must be an integer in 0..1000000 (found " + Shown(v) + ")");
    return static_cast<uint32_t>(v.get<int64_t>());
  }

  // pattern, format, minLength, maxLength (json_string_rule.h); none: the plain string node.
  int32_t String(const json& s, const std::string& path) {
    if (!s.contains("pattern") && !s.contains("format") && !s.contains("minLength") && !s.contains("maxLength"))
      return JsonGrammar::kStringNode;
    StringRule rule;
    uint32_t max = UINT32_MAX;
    for (const char* key : {"minLength", "maxLength"}) {
      if (!s.contains(key)) continue;
      const json& v = s.at(key);
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > static_cast<int64_t>(kMaxStringLength))
        Fail(path + "/" + key, "keyword '" + std::string(key) + "' must be an integer in 0.." + std::to_string(kMaxStringLength) +
                                   " (found " + Shown(v) + ")");
      (std::string(key) == "minLength" ? rule.min_length : max) = static_cast<uint32_t>(v.get<int64_t>());
    }
    bool have_dfa = false;
    if (s.contains("format")) {
      const json& v = s.at("format");
      std::string supported;
      for (const std::string& f : SupportedFormats()) supported += (supported.empty() ? "" : ", ") + f;
      if (!v.is_string() || !FormatDfa(v.get<std::string>(), rule.dfa, max))
        Fail(path + "/format", "keyword 'format' " + Shown(v) + " is not supported (supported: " + supported + ")");
      have_dfa = true;
    }
    if (s.contains("pattern")) {
      const json& v = s.at("pattern");
      if (!v.is_string()) Fail(path + "/pattern", "keyword 'pattern' must be a string");
      try {
        CodePointDfa d = CompilePattern(v.get<std::string>());
        rule.dfa = have_dfa ? IntersectDfa(rule.dfa, d) : std::move(d);
      } catch (const PatternError& e) {
        Fail(path + "/pattern", "keyword 'pattern' " + Shown(v) + " is not supported: it has " + e.what);
      }
      have_dfa = true;
    }
    if (!have_dfa) rule.dfa = CompilePattern("");
    rule.max_length = max;
    if (rule.has_max() && rule.min_length > rule.max_length) Fail(path, "minLength is larger than maxLength");
    try {
      FinishStringRule(rule);
    } catch (const PatternError& e) {
      Fail(path, "keyword '" + std::string(s.contains("maxLength") ? "maxLength" : "minLength") + "' is not supported here: " + e.what);
    }
    rule_bytes_ += rule.live.size() + rule.dfa.ranges.size() * sizeof(CodePointDfa::Range) + rule.dfa.ascii.size() * 4;
    if (rule_bytes_ > kMaxRuleBytes)
      Fail(path, "the schema's string rules (pattern, format, lengths) are too large together (over " +
                     std::to_string(kMaxRuleBytes >> 20) + " MiB of tables)");
    const int32_t id = NewNode(Kind::kString, path);
    g_.nodes[static_cast<size_t>(id)].string_rule = static_cast<int32_t>(g_.string_rules.size());
    g_.string_rules.push_back(std::move(rule));
    return id;
  }

  int32_t Typed(const json& s, const std::string& path, const std::string& type, int depth) {
    if (type == "string") return String(s, path);
    if (type == "number") return JsonGrammar::kNumberNode;
    if (type == "integer") return NewNode(Kind::kInteger, path);
    if (type == "boolean" || type == "null") {
      const int32_t id = NewNode(Kind::kLiterals, path);
      g_.nodes[static_cast<size_t>(id)].literals =
          type == "null" ? std::vector<std::string>{"null"} : std::vector<std::string>{"false", "true"};
      return id;
    }
    if (type == "array") {
      GrammarNode n;
      n.kind = Kind::kArray;
      n.items = s.contains("items") ? Compile(s.at("items"), path + "/items", depth + 1) : JsonGrammar::kAnyValue;
      if (s.contains("minItems")) n.min_items = Count(s, "minItems", path);
      if (s.contains("maxItems")) n.max_items = Count(s, "maxItems", path);
      if (n.min_items > n.max_items) Fail(path, "minItems is larger than maxItems");
      const int32_t id = NewNode(Kind::kArray, path);
      g_.nodes[static_cast<size_t>(id)] = std::move(n);
      return id;
    }
    // object
    const bool has_props = s.contains("properties");
    const json* additional = s.contains("additionalProperties") ? &s.at("additionalProperties") : nullptr;
    const bool closed = additional && additional->is_boolean() && !additional->get<bool>();
    if (additional && !closed && !(additional->is_boolean() && additional->get<bool>()))
      Fail(path + "/additionalProperties", "only false (or true without 'properties') is supported");
    if (!has_props && !closed && !s.contains("required")) return JsonGrammar::kAnyObjectNode;
    if (has_props && additional && !closed)
      Fail(path + "/additionalProperties", "true alongside 'properties' is not supported (strict mode needs false)");
    GrammarNode n;
    n.kind = Kind::kObject;
    std::set<std::string> required;
    if (s.contains("required")) {
      const json& r = s.at("required");
      if (!r.is_array()) Fail(path + "/required", "must be an array of property names");
      for (const json& name : r) {
        if (!name.is_string()) Fail(path + "/required", "must be an array of property names (found " + Shown(name) + ")");
        required.insert(name.get<std::string>());
      }
    }
    std::set<std::string> listed;
    if (has_props) {
      const json& props = s.at("properties");
      if (!props.is_object()) Fail(path + "/properties", "must be an object of named schemas");
      if (props.size() > static_cast<size_t>(kMaxObjectProperties))
        Fail(path + "/properties", "more than " + std::to_string(kMaxObjectProperties) + " properties in one object are not supported");
      // nlohmann::json keeps an object's keys sorted, not in the order written: read the order
      // from ordered_json so the model writes them in the schema's order (as OpenAI does).
      for (const std::string& name : KeyOrder(path + "/properties", props)) {
        GrammarNode::Property p;
        p.key = json(name).dump();
        p.required = required.count(name) > 0;
        p.node = Compile(props.at(name), path + "/properties/" + PointerKey(name), depth + 1);
        listed.insert(name);
        n.properties.push_back(std::move(p));
      }
    }
    for (const std::string& name : required)
      if (!listed.count(name)) Fail(path + "/required", "'" + name + "' is required but not among the properties");
    const int32_t id = NewNode(Kind::kObject, path);
    g_.nodes[static_cast<size_t>(id)] = std::move(n);
    return id;
  }

  // The properties' names in the order the schema text wrote them, when known (set by
  // CompileJsonSchema from an ordered parse); otherwise sorted.
  std::vector<std::string> KeyOrder(const std::string& path, const json& props) const {
    auto it = key_order_.find(path);
    if (it != key_order_.end()) return it->second;
    std::vector<std::string> keys;
    for (auto k = props.begin(); k != props.end(); ++k) keys.push_back(k.key());
    return keys;
  }

 public:
  std::map<std::string, std::vector<std::string>> key_order_;

 private:
  // anyOf alternatives that are anyOf themselves (a $ref to one, the root or a def slot) are
  // replaced by theirs, so the automaton forks once per value.
  void FlattenAnyOf() {
    std::vector<int> mark(g_.nodes.size(), 0);  // 0 new, 1 on the path, 2 done
    std::function<void(int32_t)> visit = [&](int32_t id) {
      GrammarNode& n = g_.nodes[static_cast<size_t>(id)];
      if (n.kind != Kind::kAnyOf || mark[static_cast<size_t>(id)] == 2) return;
      if (mark[static_cast<size_t>(id)] == 1)
        throw Error("JSON schema: a $ref or anyOf cycle that writes nothing (a schema that is only a reference to itself)");
      mark[static_cast<size_t>(id)] = 1;
      std::vector<int32_t> flat;
      for (int32_t a : std::vector<int32_t>(n.alternatives)) {
        visit(a);
        const GrammarNode& alt = g_.nodes[static_cast<size_t>(a)];
        if (alt.kind == Kind::kAnyOf) flat.insert(flat.end(), alt.alternatives.begin(), alt.alternatives.end());
        else flat.push_back(a);
      }
      std::vector<int32_t> distinct;
      for (int32_t a : flat)
        if (std::find(distinct.begin(), distinct.end(), a) == distinct.end()) distinct.push_back(a);
      g_.nodes[static_cast<size_t>(id)].alternatives = std::move(distinct);
      mark[static_cast<size_t>(id)] = 2;
    };
    for (size_t i = 0; i < g_.nodes.size(); ++i) visit(static_cast<int32_t>(i));
  }

  // Least fixpoint of "some finite document matches": a node is satisfiable when its required
  // parts are. Unsatisfiable optional parts are then removed, so every prefix the automaton
  // accepts can be completed.
  void Prune() {
    std::vector<bool> sat(g_.nodes.size(), false);
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < g_.nodes.size(); ++i) {
        if (sat[i]) continue;
        const GrammarNode& n = g_.nodes[i];
        bool ok = true;
        switch (n.kind) {
          case Kind::kObject:
            for (const auto& p : n.properties) ok = ok && (!p.required || sat[static_cast<size_t>(p.node)]);
            break;
          case Kind::kArray:
            ok = n.min_items == 0 || sat[static_cast<size_t>(n.items)];
            break;
          case Kind::kAnyOf:
            ok = false;
            for (int32_t a : n.alternatives) ok = ok || sat[static_cast<size_t>(a)];
            break;
          case Kind::kString:
            ok = n.string_rule < 0 || g_.string_rules[static_cast<size_t>(n.string_rule)].Live(0, 0);
            break;
          default:
            break;
        }
        if (ok) sat[i] = changed = true;
      }
    }
    if (!sat[static_cast<size_t>(root_slot_)])
      throw Error("JSON schema: it accepts no finite document (a required property or item refers back to itself with no way out, or a required string that no string meets: its pattern, format, minLength and maxLength together)");
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      GrammarNode& n = g_.nodes[i];
      if (n.kind == Kind::kObject)
        std::erase_if(n.properties, [&](const auto& p) { return !sat[static_cast<size_t>(p.node)]; });
      if ((n.kind == Kind::kArray || n.kind == Kind::kAnyArray) && !sat[static_cast<size_t>(n.items)]) n.max_items = 0;
      if (n.kind == Kind::kAnyOf)
        std::erase_if(n.alternatives, [&](int32_t a) { return !sat[static_cast<size_t>(a)]; });
    }
  }

  static constexpr size_t kMaxRuleBytes = size_t{64} << 20;
  size_t rule_bytes_ = 0;
  const json& root_;
  JsonGrammar g_;
  int32_t root_slot_ = 0;
  std::map<std::string, Def> def_slots_;
};

// Records, for every "properties" object of the schema, its keys in the order written.
void CollectKeyOrder(const nlohmann::ordered_json& s, const std::string& path,
                     std::map<std::string, std::vector<std::string>>& out, int depth) {
  if (depth > kMaxSchemaDepth + 2) return;  // the compiler reports the depth
  if (s.is_object()) {
    for (auto it = s.begin(); it != s.end(); ++it) {
      const std::string child = path + "/" + PointerKey(it.key());
      if (it.key() == "properties" && it.value().is_object()) {
        std::vector<std::string> keys;
        for (auto k = it.value().begin(); k != it.value().end(); ++k) keys.push_back(k.key());
        out[child] = std::move(keys);
      }
      CollectKeyOrder(it.value(), child, out, depth + 1);
    }
  } else if (s.is_array()) {
    for (size_t i = 0; i < s.size(); ++i) CollectKeyOrder(s[i], path + "/" + std::to_string(i), out, depth + 1);
  }
}

}  // namespace

std::shared_ptr<const JsonGrammar> AnyJsonObjectGrammar() {
  const json any_object = json::object();
  Compiler c(any_object);
  auto g = std::const_pointer_cast<JsonGrammar>(c.Run());
  g->root = JsonGrammar::kAnyObjectNode;
  return g;
}

std::shared_ptr<const JsonGrammar> CompileJsonSchema(const nlohmann::json& schema) {
  Compiler c(schema);
  return c.Run();
}

std::shared_ptr<const JsonGrammar> CompileJsonSchemaText(const std::string& text, const std::string& source) {
  nlohmann::ordered_json ordered;
  json schema;
  try {
    ordered = nlohmann::ordered_json::parse(text);
    schema = json::parse(text);
  } catch (const std::exception& e) {
    throw Error(source + " is not valid JSON: " + e.what());
  }
  Compiler c(schema);
  CollectKeyOrder(ordered, "#", c.key_order_, 0);
  return c.Run();
}

}  // namespace glance::text
