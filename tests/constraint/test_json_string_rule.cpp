// String constraints (core/text/json_string_rule.h) through the JSON automaton: each pattern
// feature, each format and minLength/maxLength accept hand-made strings (at every prefix) and
// refuse others; patterns agree with std::regex's ECMAScript search on random strings; unsupported
// regex features and formats are errors naming them; no constrained state is a dead end.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "core/text/json_automaton.h"
#include "core/text/json_grammar.h"
#include "core/util/error.h"

namespace glance::text {
namespace {

using json = nlohmann::json;

JsonAutomaton StringSchema(const json& extra) {
  json s = extra;
  s["type"] = "string";
  return JsonAutomaton(CompileJsonSchema(s));
}

// The document of a string value (UTF-8), JSON-encoded by nlohmann (control characters as \u00XX).
std::string Doc(const std::string& value) { return json(value).dump(); }

// Every byte of the document is taken and it can end; and from every prefix some byte or the end
// is allowed (no dead end).
void ExpectAccepted(const JsonAutomaton& a, const std::string& doc, const std::string& what) {
  JsonState s = a.Start();
  for (size_t i = 0; i < doc.size(); ++i) {
    bool some = false;
    JsonState t;
    for (int b = 0; b < 256 && !some; ++b) {
      a.Step(s, static_cast<uint8_t>(b), t);
      some = !t.dead();
    }
    ASSERT_TRUE(some) << what << ": dead end after " << i << " bytes of " << doc;
    ASSERT_TRUE(a.Feed(s, doc.substr(i, 1))) << what << ": refused byte " << i << " of " << doc;
  }
  EXPECT_TRUE(a.CanEnd(s)) << what << ": cannot end " << doc;
}

void ExpectRefused(const JsonAutomaton& a, const std::string& doc, const std::string& what) {
  EXPECT_FALSE(a.Accepts(doc)) << what << ": accepted " << doc;
}

struct Case {
  json schema;  // string keywords
  std::vector<std::string> valid, invalid;  // string values (UTF-8)
};

void Check(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    const JsonAutomaton a = StringSchema(c.schema);
    for (const std::string& v : c.valid) ExpectAccepted(a, Doc(v), c.schema.dump());
    for (const std::string& v : c.invalid) ExpectRefused(a, Doc(v), c.schema.dump());
  }
}

TEST(JsonStringRule, LengthsCountCodePoints) {
  Check({
      {{{"minLength", 2}, {"maxLength", 3}},
       {"ab", "abc", "\xC3\xA9\xC3\xA9", "\xF0\x9F\x98\x80\xF0\x9F\x98\x80\xF0\x9F\x98\x80", "a\nb", "\"\\"},
       {"", "a", "abcd", "\xF0\x9F\x98\x80", "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9"}},
      {{{"maxLength", 0}}, {""}, {"a", "\xC3\xA9"}},
      {{{"minLength", 5}}, {"abcde", "abcdefghijklmnopqrstuvwxyz", "\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC"},
       {"abcd", "\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC\xE2\x82\xAC"}},
  });
  // Escapes count one code point each; \u escapes too.
  const JsonAutomaton a = StringSchema({{"maxLength", 2}});
  ExpectAccepted(a, R"("\u00e9\n")", "escapes");
  ExpectRefused(a, R"("\u00e9\nx")", "escapes");
  ExpectRefused(a, R"("\ud83d\ude00")", "a surrogate escape is not written under a rule");
  // The cap: a whole string of maxLength bytes is taken, not one more byte.
  const JsonAutomaton b = StringSchema({{"maxLength", 300}});
  ExpectAccepted(b, Doc(std::string(300, 'x')), "300");
  ExpectRefused(b, Doc(std::string(301, 'x')), "301");
}

TEST(JsonStringRule, FormatsAcceptTheirStringsOnly) {
  Check({
      {{{"format", "date"}},
       {"2024-02-29", "2000-02-29", "1999-12-31", "0000-02-29", "2023-04-30", "1600-02-29"},
       {"2023-02-29", "1900-02-29", "2100-02-29", "2024-04-31", "2024-13-01", "2024-00-10", "2024-01-00", "2024-1-01",
        "24-01-01", "2024-01-01T", " 2024-01-01", "2024/01/01"}},
      {{{"format", "time"}},
       {"23:59:59Z", "00:00:00+05:30", "12:34:56.789-08:00", "12:00:00.123456789Z"},
       {"24:00:00Z", "12:60:00Z", "12:00:60Z", "12:00:00", "12:00:00+24:00", "12:00:00+05:60", "12:00:00.Z", "12:00Z",
        "12:00:00.1234567890Z"}},
      {{{"format", "date-time"}},
       {"2024-02-29T23:59:59Z", "1999-01-01T00:00:00.5+01:00"},
       {"2023-02-29T00:00:00Z", "2024-01-01 00:00:00Z", "2024-01-01T00:00:00", "2024-01-01"}},
      {{{"format", "duration"}},
       {"P1Y", "P1Y2M3DT4H5M6S", "PT1S", "P3W", "P2M", "P1DT12H", "PT10M"},
       {"P", "PT", "P1DT", "P1W2D", "1Y", "P1S", "PT1Y", "P1M1Y"}},
      {{{"format", "uuid"}},
       {"123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000"},
       {"123e4567-e89b-12d3-a456-42661417400", "123e4567e89b12d3a456426614174000", "g23e4567-e89b-12d3-a456-426614174000"}},
      {{{"format", "ipv4"}},
       {"0.0.0.0", "255.255.255.255", "192.168.1.10"},
       {"256.0.0.1", "01.2.3.4", "1.2.3", "1.2.3.4.5", "1.2.3.-4"}},
      {{{"format", "ipv6"}},
       {"::", "::1", "fe80::1", "2001:db8:0:0:0:0:2:1", "2001:DB8::8:800:200C:417A", "1:2:3:4:5:6:7::", "1::"},
       {":", ":::", "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "g::", "1:2:3:4:5:6:7"}},
      {{{"format", "email"}},
       {"a@b.co", "first.last+tag@mail.example.org", "x!#$%&'*+/=?^_`{|}~-@a-b.c1"},
       {"a@b", "@b.co", "a@.co", "a..b@c.de", ".a@c.de", "a@b-.co", "a@-b.co", "a b@c.de", "a@b.c_o"}},
      {{{"format", "hostname"}},
       {"localhost", "a.b-c.example", std::string(63, 'a') + ".com"},
       {"", "-a.com", "a-.com", "a..b", "a.", std::string(64, 'a') + ".com", "a_b.com"}},
  });
  // hostname: 253 characters at most in all.
  const std::string host = std::string(63, 'a') + "." + std::string(63, 'b') + "." + std::string(63, 'c') + "." + std::string(61, 'd');
  ASSERT_EQ(host.size(), 253u);
  const JsonAutomaton h = StringSchema({{"format", "hostname"}});
  ExpectAccepted(h, Doc(host), "253");
  ExpectRefused(h, Doc(host + "h"), "254");
  // A format and a length together.
  Check({{{{"format", "ipv4"}, {"maxLength", 7}}, {"1.2.3.4", "9.9.9.9"}, {"10.0.0.1", "1.2.3.45"}}});
}

TEST(JsonStringRule, PatternFeatures) {
  Check({
      {{{"pattern", "abc"}}, {"abc", "xxabcxx", "abcabc"}, {"", "ab", "acb", "ABC"}},
      {{{"pattern", "^abc$"}}, {"abc"}, {"xabc", "abcx", "abcabc"}},
      {{{"pattern", "^a.c$"}}, {"abc", "a-c", "a\xC3\xA9" "c", "a\xF0\x9F\x98\x80" "c"}, {"a\nc", "ac", "a\xE2\x80\xA8" "c"}},
      {{{"pattern", "^[a-c1-2_]+$"}}, {"a", "abc12_", "c"}, {"", "d", "ab3", "A"}},
      {{{"pattern", "^[^a-z]$"}}, {"A", "1", "\xC3\xA9", "\n"}, {"a", "z", "AB"}},
      {{{"pattern", "^\\d\\D\\w\\W\\s\\S$"}}, {"1a_ \t.", "9xZ-\n\xC3\xA9"}, {"aa_ \t.", "1a_a\t.", "1a_ x."}},
      {{{"pattern", "^(ab|cd)(?:ef|gh)(?<n>i)?$"}}, {"abef", "cdgh", "abghi"}, {"abcd", "ef", "abefii"}},
      {{{"pattern", "^a?b*c+$"}}, {"c", "abbc", "bcc"}, {"", "aac", "ab"}},
      {{{"pattern", "^x{3}y{2,}z{1,2}$"}}, {"xxxyyz", "xxxyyyyzz"}, {"xxyyz", "xxxyz", "xxxyyzzz"}},
      {{{"pattern", "^a+?b??c*?$"}}, {"a", "ab", "abccc"}, {"b", ""}},
      {{{"pattern", "^\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\/\\\\\\^\\$$"}}, {".*+?()[]{}|/\\^$"}, {"x"}},
      {{{"pattern", "^\\t\\n\\x41\\u00e9\\u{1F600}\\cJ\\0$"}}, {std::string("\t\nA\xC3\xA9\xF0\x9F\x98\x80\n") + '\0'}, {"\t\nA"}},
      {{{"pattern", "^[\\d.-]+$"}}, {"1.5-2", "-"}, {"a"}},
      {{{"pattern", "a^b|^c"}}, {"c", "cx"}, {"ab", "xc", "a^b"}},
      {{{"pattern", "a$|b"}}, {"xa", "b", "bx"}, {"ax", "c"}},
      {{{"pattern", "\""}}, {"say \"hi\""}, {"say hi"}},
  });
}

TEST(JsonStringRule, PatternsAgreeWithEcmaScriptSearchOnRandomStrings) {
  // std::regex's ECMAScript grammar (regex_search: an unanchored match anywhere) as the
  // reference, over random ASCII strings of the patterns' own characters.
  const std::vector<std::string> patterns = {
      "ab", "^a(b|c)*d$", "^[a-c]{2,3}$", "a.c", "^\\d+(\\.\\d{1,2})?$", "(ab|ba)+$", "^a|b$", "^(a?b){2}c*$",
      "[^ab]c", "^\\w\\s?\\w$", "x{2,}", "^(?:a|bc|)d?$"};
  std::mt19937 rng(11);
  const std::string alphabets[3] = {"abcdx1. _\n", "abcd", "12."};
  for (const std::string& p : patterns) {
    const JsonAutomaton a = StringSchema({{"pattern", p}});
    const std::regex re(p, std::regex::ECMAScript);
    int matched = 0;
    for (int k = 0; k < 400; ++k) {
      const std::string& alphabet = alphabets[k % 3];
      std::string v;
      const size_t len = rng() % 7;
      for (size_t i = 0; i < len; ++i) v += alphabet[rng() % alphabet.size()];
      const bool want = std::regex_search(v, re);
      matched += want;
      EXPECT_EQ(a.Accepts(Doc(v)), want) << p << " on " << json(v).dump();
    }
    EXPECT_GT(matched, 0) << p;  // the comparison saw both answers
    EXPECT_LT(matched, 400) << p;
  }
}

TEST(JsonStringRule, NegativeControlAnotherPatternDisagrees) {
  // The agreement above can fail: a pattern's automaton against another pattern's regex.
  const JsonAutomaton a = StringSchema({{"pattern", "^a(b|c)*d$"}});
  const std::regex re("^a(b|c)*d", std::regex::ECMAScript);
  EXPECT_NE(a.Accepts(Doc("abdx")), std::regex_search(std::string("abdx"), re));
}

TEST(JsonStringRule, UnsupportedFeaturesAreNamed) {
  const std::vector<std::pair<json, std::string>> bad = {
      {{{"pattern", "(?=a)b"}}, "lookahead"},
      {{{"pattern", "(?!a)b"}}, "lookahead"},
      {{{"pattern", "(?<=a)b"}}, "lookbehind"},
      {{{"pattern", "(?<!a)b"}}, "lookbehind"},
      {{{"pattern", "(a)\\1"}}, "backreference"},
      {{{"pattern", "(?<x>a)\\k<x>"}}, "named backreference"},
      {{{"pattern", "\\bword"}}, "word-boundary"},
      {{{"pattern", "\\p{L}"}}, "Unicode property escape"},
      {{{"pattern", "\\e"}}, "invalid with the u flag"},
      {{{"pattern", "a{2,1}"}}, "n < m"},
      {{{"pattern", "a{1001}"}}, "over 1000"},
      {{{"pattern", "(a"}}, "unclosed group"},
      {{{"pattern", "a[ab]{13}$"}}, "too complex"},  // 2^14 DFA states
      {{{"pattern", "(?:\\w{1,1000}){40}"}}, "too large"},
      {{{"pattern", "a)"}}, "unmatched ')'"},
      {{{"pattern", "*a"}}, "nothing to repeat"},
      {{{"pattern", "[z-a]"}}, "out of order"},
      {{{"pattern", "\\ud800"}}, "surrogate"},
      {{{"pattern", 5}}, "must be a string"},
      {{{"pattern", "^[]$"}}, "accepts no finite document"},
      {{{"format", "uri"}}, "'format' \"uri\" is not supported"},
      {{{"format", "regex"}}, "'format' \"regex\""},
      {{{"format", "int32"}}, "'format' \"int32\""},
      {{{"minLength", 10001}}, "'minLength' must be an integer in 0..10000"},
      {{{"maxLength", -1}}, "'maxLength'"},
      {{{"maxLength", 1.5}}, "'maxLength'"},
      {{{"minLength", 3}, {"maxLength", 2}}, "minLength is larger than maxLength"},
      {{{"pattern", "^a$"}, {"minLength", 2}}, "accepts no finite document"},
      {{{"format", "ipv4"}, {"maxLength", 6}}, "accepts no finite document"},
      {{{"format", "email"}, {"maxLength", 10000}}, "'maxLength' is not supported here"},
  };
  for (const auto& [kw, want] : bad) {
    json s = kw;
    s["type"] = "string";
    try {
      CompileJsonSchema(s);
      ADD_FAILURE() << "accepted: " << s.dump();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << s.dump() << " -> " << e.what();
      if (kw.contains("pattern") && kw.size() == 1 && want != "accepts no finite document") {
        EXPECT_NE(std::string(e.what()).find("'pattern'"), std::string::npos) << e.what();
      }
    }
  }
  // Where: the path of the keyword.
  try {
    CompileJsonSchemaText(R"j({"type":"object","properties":{"a":{"type":"string","pattern":"(?=x)"}}})j", "s");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("#/properties/a/pattern"), std::string::npos) << e.what();
  }
  // An optional property no string satisfies is left out, not fatal.
  const JsonAutomaton a(CompileJsonSchemaText(
      R"({"type":"object","properties":{"a":{"type":"string","pattern":"^x$","minLength":2},"b":{"type":"integer"}},"additionalProperties":false})", "s"));
  EXPECT_TRUE(a.Accepts(R"({"b":1})"));
  EXPECT_FALSE(a.Accepts(R"({"a":"x","b":1})"));
  // A format no grammar writes is refused on any type (int32 on an integer); string rules on
  // other types change nothing (JSON Schema applies them to strings only).
  EXPECT_THROW(CompileJsonSchema(json{{"type", "integer"}, {"format", "int32"}}), Error);
  const JsonAutomaton n(CompileJsonSchema(json{{"type", json::array({"integer", "string"})}, {"format", "date"}, {"maxLength", 10}}));
  EXPECT_TRUE(n.Accepts("12345678901"));
  EXPECT_TRUE(n.Accepts("\"2024-01-01\""));
  EXPECT_FALSE(n.Accepts("\"2024-01-1\""));
  // String keywords without a type imply a string; with enum they are refused.
  EXPECT_TRUE(JsonAutomaton(CompileJsonSchema(json{{"maxLength", 1}})).Accepts("\"a\""));
  EXPECT_THROW(CompileJsonSchema(json{{"enum", json::array({"a"})}, {"pattern", "a"}}), Error);
}

TEST(JsonStringRule, PlainStringFastPathOnlyWhereEveryContinuationIsAllowed) {
  // json_token_mask.h answers plain string tokens from precomputed sets only where any of them
  // is allowed but for its length: a pattern's match behind; `room` code points left.
  int cls = 0;
  uint32_t room = 0;
  const JsonAutomaton p = StringSchema({{"pattern", "^[a-z]+\\d{2}"}});
  JsonState s = p.Start();
  ASSERT_TRUE(p.Feed(s, "\"abc1"));
  EXPECT_FALSE(p.InStringBody(s, cls, room));
  ASSERT_TRUE(p.Feed(s, "2"));
  EXPECT_TRUE(p.InStringBody(s, cls, room));
  EXPECT_EQ(room, UINT32_MAX);
  const JsonAutomaton m = StringSchema({{"maxLength", 20}});
  s = m.Start();
  ASSERT_TRUE(m.Feed(s, "\"abcd\xC3"));
  EXPECT_TRUE(m.InStringBody(s, cls, room));
  EXPECT_EQ(room, 15u);  // the pending \xC3 is begun
  EXPECT_NE(cls, 0);
  const JsonAutomaton f = StringSchema({{"format", "date"}});
  s = f.Start();
  ASSERT_TRUE(f.Feed(s, "\"2024-01-3"));
  EXPECT_FALSE(f.InStringBody(s, cls, room));
}

}  // namespace
}  // namespace glance::text
