// The JSON Schema compiler and the pushdown automaton (core/text/json_grammar.h,
// json_automaton.h) against hand-made documents: each schema's valid documents are accepted
// whole and at every prefix, its invalid ones refused (either at a byte or at the end), and a
// keyword the grammar cannot enforce is an error naming it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/text/json_automaton.h"
#include "core/text/json_grammar.h"
#include "core/util/error.h"

namespace glance::text {
namespace {

JsonAutomaton FromText(const std::string& schema) { return JsonAutomaton(CompileJsonSchemaText(schema, "schema")); }

// Every prefix of a valid document is alive; only the whole one can end (numbers aside).
void ExpectValid(const JsonAutomaton& a, const std::string& doc) {
  JsonState s = a.Start();
  for (size_t i = 0; i < doc.size(); ++i) {
    ASSERT_TRUE(a.Feed(s, doc.substr(i, 1))) << "refused byte " << i << " ('" << doc[i] << "') of " << doc;
  }
  EXPECT_TRUE(a.CanEnd(s)) << "cannot end after " << doc;
}

void ExpectInvalid(const JsonAutomaton& a, const std::string& doc) { EXPECT_FALSE(a.Accepts(doc)) << doc; }

struct Case {
  std::string schema;
  std::vector<std::string> valid, invalid;
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {R"({"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name","age"],"additionalProperties":false})",
       {R"({"name":"Ada","age":36})", R"({ "name" : "A\"d\u00e9\n" , "age" : -0 })", "{\n  \"name\": \"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\",\n  \"age\": 120\n}"},
       {R"({"age":36,"name":"Ada"})", R"({"name":"Ada"})", R"({"name":"Ada","age":36,"x":1})", R"({"name":"Ada","age":3.5})",
        R"({"name":"Ada","age":01})", R"({"name":Ada,"age":1})", R"({"name":"Ada","age":1,})", R"( {"name":"A","age":1})",
        R"({"name":"A","age":1} )", "{\"name\":\"\x01\",\"age\":1}", "{\"name\":\"\xC0\xAF\",\"age\":1}",
        "{\"name\":\"\xED\xA0\x80\",\"age\":1}", "{\"name\":\"\xF4\x90\x80\x80\",\"age\":1}", R"({"name":"\x","age":1})",
        R"({"name":"\u12G4","age":1})", R"({"name":"A","age":1}{)", R"({"name":"A","age":1)", R"({"name":"A","age":1234567890123456})"}},
      {R"({"type":"object","properties":{"a":{"type":"boolean"},"b":{"type":"null"},"c":{"type":"number"}},"required":["b"],"additionalProperties":false})",
       {R"({"b":null})", R"({"a":true,"b":null})", R"({"b":null,"c":1.5e-3})", R"({"a":false,"b":null,"c":-0.25E+12})"},
       {R"({})", R"({"a":true})", R"({"c":1,"b":null})", R"({"b":null,"c":1.})", R"({"b":null,"c":.5})", R"({"b":null,"c":1e})",
        R"({"b":null,"c":1e123})", R"({"b":nul})", R"({"b":null,"c":+1})"}},
      {R"({"enum":["red","green","blue",3,null,{"k":[1,2]}]})",
       {R"("red")", R"("green")", R"(3)", R"(null)", R"({"k":[1,2]})"},
       {R"("re")", R"("redd")", R"("Red")", R"(30)", R"({"k":[1, 2]})", R"(true)"}},
      {R"({"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":3})",
       {R"([1])", R"([1,2,3])", R"([ 1 , -2 ])"},
       {R"([])", R"([1,2,3,4])", R"([1,])", R"([1.5])", R"(["1"])", R"([,1])"}},
      {R"({"anyOf":[{"type":"string"},{"type":"integer"},{"type":"object","properties":{"x":{"const":1}},"required":["x"],"additionalProperties":false}]})",
       {R"("s")", R"(12)", R"({"x":1})"},
       {R"(1.5)", R"({"x":2})", R"(true)", R"({})"}},
      {R"({"type":["string","null"]})", {R"("a")", R"(null)"}, {R"(1)", R"(false)"}},
      {R"({"$defs":{"point":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x","y"],"additionalProperties":false}},
          "type":"object","properties":{"from":{"$ref":"#/$defs/point"},"to":{"$ref":"#/$defs/point"}},"required":["from","to"],"additionalProperties":false})",
       {R"({"from":{"x":0,"y":1},"to":{"x":2.5,"y":-1}})"},
       {R"({"from":{"x":0},"to":{"x":2,"y":1}})", R"({"from":{"y":1,"x":0},"to":{"x":2,"y":1}})"}},
      {R"({"type":"object","properties":{"v":{"type":"integer"},"next":{"anyOf":[{"$ref":"#"},{"type":"null"}]}},"required":["v","next"],"additionalProperties":false})",
       {R"({"v":1,"next":null})", R"({"v":1,"next":{"v":2,"next":{"v":3,"next":null}}})"},
       {R"({"v":1,"next":{"v":2}})", R"({"v":1})"}},
      {R"({})", {R"({"a":[1,"x",{"b":null}],"c":true})", R"("s")", R"(-1.5)", R"([])", R"(false)"}, {R"({"a":})", R"([1 2])", R"(tru)", R"('a')"}},
      {R"({"type":"object"})", {R"({})", R"({"any":{"thing":[true]},"k":"v"})"}, {R"([])", R"("a")", R"({"a"})", R"({a:1})"}},
      {R"({"type":"integer"})", {R"(0)", R"(-7)", R"(123456789012345)"}, {R"(-)", R"(1.0)", R"(1e3)", R"(007)"}},
      {R"({"type":"array","items":{"type":"array","items":{"type":"boolean"},"maxItems":2}})",
       {R"([])", R"([[],[true,false]])"}, {R"([[true,true,true]])", R"([true])"}},
  };
  return cases;
}

TEST(JsonAutomaton, HandMadeDocumentsAreAcceptedOrRefused) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.schema);
    const JsonAutomaton a = FromText(c.schema);
    for (const std::string& d : c.valid) ExpectValid(a, d);
    for (const std::string& d : c.invalid) ExpectInvalid(a, d);
  }
}

TEST(JsonAutomaton, JsonObjectModeTakesAnyObjectOnly) {
  const JsonAutomaton a(AnyJsonObjectGrammar());
  ExpectValid(a, R"({"k":[1,{"n":null}],"s":"\u00e9"})");
  ExpectValid(a, R"({})");
  for (const char* bad : {"[]", "1", "\"s\"", "{\"a\":1", "{\"a\":1}}", "{\"a\" 1}"}) ExpectInvalid(a, bad);
}

TEST(JsonAutomaton, PropertiesComeInTheSchemasWrittenOrder) {
  // The text order (b before a) is the order written, not the sorted one.
  const JsonAutomaton a = FromText(R"({"type":"object","properties":{"b":{"type":"integer"},"a":{"type":"integer"}},"required":["b","a"],"additionalProperties":false})");
  ExpectValid(a, R"({"b":1,"a":2})");
  ExpectInvalid(a, R"({"a":2,"b":1})");
}

TEST(JsonAutomaton, WhitespaceAndNestingAreBounded) {
  const JsonAutomaton a(AnyJsonObjectGrammar());
  ExpectValid(a, "{" + std::string(kMaxGapWhitespace, ' ') + "}");
  ExpectInvalid(a, "{" + std::string(kMaxGapWhitespace + 1, ' ') + "}");
  // kMaxDepth containers (the object and kMaxDepth - 1 arrays) open at once are fine; one more is not.
  std::string open = "{\"a\":", close = "}";
  for (int i = 1; i < kMaxDepth; ++i) open += "[", close = "]" + close;
  ExpectValid(a, open + "1" + close);
  ExpectInvalid(a, open + "[1]" + close);
}

TEST(JsonAutomaton, EveryStateCanStillFinish) {
  // After any prefix of a valid document some byte or the end is allowed (no dead ends).
  for (const Case& c : Cases()) {
    const JsonAutomaton a = FromText(c.schema);
    for (const std::string& d : c.valid) {
      JsonState s = a.Start();
      for (char ch : d) {
        bool some = a.CanEnd(s);
        JsonState t;
        for (int b = 0; b < 256 && !some; ++b) {
          a.Step(s, static_cast<uint8_t>(b), t);
          some = !t.dead();
        }
        EXPECT_TRUE(some) << c.schema << " after a prefix of " << d;
        ASSERT_TRUE(a.Feed(s, std::string(1, ch)));
      }
    }
  }
}

TEST(JsonSchemaCompile, UnsupportedKeywordsAreNamed) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {R"j({"type":"string","pattern":"^(?=a)"})j", "'pattern' \"^(?=a)\" is not supported: it has lookahead"},
      {R"({"type":"string","format":"uri"})", "'format' \"uri\""},
      {R"({"type":"string","minLength":20000})", "'minLength'"},
      {R"({"type":"integer","minimum":0})", "'minimum'"},
      {R"({"type":"number","minimum":-9007199254740991})", "only supported on type integer"},
      {R"({"minimum":-9007199254740991})", "only supported on type integer"},
      {R"({"type":"integer","maximum":1000})", "'maximum' 1000"},
      {R"({"oneOf":[{"type":"string"}]})", "'oneOf'"},
      {R"({"allOf":[{"type":"string"}]})", "'allOf'"},
      {R"({"type":"object","properties":{"a":{"type":"number","multipleOf":2}}})", "#/properties/a: keyword 'multipleOf'"},
      {R"({"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"string"}})", "additionalProperties"},
      {R"({"type":"array","prefixItems":[{"type":"string"}]})", "'prefixItems'"},
      {R"({"type":"date"})", "not a JSON Schema type"},
      {R"({"$ref":"#/components/x"})", "'$ref' #/components/x"},
      {R"({"type":"object","properties":{"a":{"type":"string"}},"required":["b"]})", "'b' is required but not among the properties"},
      {R"({"enum":[]})", "non-empty"},
      {R"({"type":"string","enum":[1,2]})", "no value of 'enum'"},
      {R"({"type":"array","minItems":3,"maxItems":2})", "minItems is larger than maxItems"},
      {R"({"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"})", "cycle"},
      {R"({"type":"object","properties":{"self":{"$ref":"#"}},"required":["self"]})", "accepts no finite document"},
      {R"(false)", "accepts nothing"},
      {R"([1])", "must be an object"},
      {R"({"type":)", "not valid JSON"},
  };
  for (const auto& [schema, want] : bad) {
    try {
      CompileJsonSchemaText(schema, "schema.json");
      ADD_FAILURE() << "accepted: " << schema;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << schema << " -> " << e.what();
    }
  }
  // Control: the same schemas without the offending keyword compile.
  EXPECT_NO_THROW(CompileJsonSchemaText(R"({"type":"string"})", "s"));
  EXPECT_NO_THROW(CompileJsonSchemaText(R"({"type":"string","pattern":"^2","format":"date","minLength":2})", "s"));
  // zod's .int(): the safe-integer bounds, which every generated integer meets.
  EXPECT_NO_THROW(CompileJsonSchemaText(R"({"type":"integer","minimum":-9007199254740991,"maximum":9007199254740991})", "s"));
  EXPECT_NO_THROW(CompileJsonSchemaText(R"({"type":"object","properties":{"self":{"anyOf":[{"$ref":"#"},{"type":"null"}]}},"required":["self"]})", "s"));
}

TEST(JsonSchemaCompile, UnreachableOptionalPartsArePrunedNotFatal) {
  // An optional property whose schema has no finite document is left out; the rest works.
  const JsonAutomaton a = FromText(R"({"$defs":{"loop":{"type":"object","properties":{"x":{"$ref":"#/$defs/loop"}},"required":["x"],"additionalProperties":false}},
      "type":"object","properties":{"ok":{"type":"integer"},"never":{"$ref":"#/$defs/loop"}},"additionalProperties":false})");
  ExpectValid(a, R"({"ok":1})");
  ExpectInvalid(a, R"({"ok":1,"never":{})");
}

}  // namespace
}  // namespace glance::text
