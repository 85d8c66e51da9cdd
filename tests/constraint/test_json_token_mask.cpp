// The token mask (core/text/json_token_mask.h) equals the plain definition — a token is allowed
// when stepping the automaton over each of its bytes keeps some stack alive — at states along
// valid documents, on the tiny-a and demo-model tokenizers and on a synthetic vocabulary rich in
// JSON punctuation and broken UTF-8 (the string fast path and the trie walk both exercised).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/engine/engine.h"
#include "core/text/json_automaton.h"
#include "core/text/json_grammar.h"
#include "core/text/json_token_mask.h"
#include "core/text/tokenizer.h"

namespace glance::text {
namespace {

struct Doc {
  std::string schema;  // "" = json_object mode
  std::string text;
};

const std::vector<Doc>& Docs() {
  static const std::vector<Doc> docs = {
      {"", R"({"name": "caf\u00e9 \"x\"", "list": [1, -2.5e3, true, null, {"k": "\u00e9\ud83d\ude00"}], "e": {}})"},
      {"", "{\"s\":\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80 ok\"}"},
      {R"({"type":"object","properties":{"objects":{"type":"array","items":{"type":"object","properties":{"shape":{"enum":["circle","square","star"]},"colour":{"type":"string"},"where":{"type":"string"}},"required":["shape","colour","where"],"additionalProperties":false}}},"required":["objects"],"additionalProperties":false})",
       R"({"objects": [{"shape": "star", "colour": "blue", "where": "bottom left"}, {"shape":"circle","colour":"red","where":"top"}]})"},
      {R"({"anyOf":[{"type":"integer"},{"type":"array","items":{"type":["string","null"]}}]})", R"(["a\\b", null, "c"])"},
      {R"({"type":"number"})", "-12.5e+7"},
      // Two alternatives alive through a string (the union of two stacks' masks).
      {R"({"anyOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false},
                   {"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}]})",
       R"({"a": "caf\u00e9 \"q\" x", "b": 7})"},
      // String rules (pattern, format, lengths): the trie walked with the rule's DFA and counter,
      // and the plain-string sets once a pattern's match is behind (any continuation matches)
      // with room left under maxLength.
      {R"({"type":"object","properties":{"d":{"type":"string","format":"date"},"e":{"type":"string","format":"email"},
          "n":{"type":"string","minLength":2,"maxLength":5},"p":{"type":"string","pattern":"^[a-z]+\\d{2}"},
          "u":{"type":"string","maxLength":40},"m":{"type":"string","minLength":3},"t":{"type":"string","format":"date-time"}},
          "required":["d","e","n","p","u","m","t"],"additionalProperties":false})",
       "{\"d\": \"2024-02-29\", \"e\": \"a.b@x-y.org\", \"n\": \"\\u00e9\xF0\x9F\x98\x80x\", \"p\": \"abc12 tail \\\"q\\\" \xC3\xA9\", "
       "\"u\": \"some text \xC3\xA9 that is long enough\", \"m\": \"a\\nbcdef\", \"t\": \"2024-01-31T23:59:59.5+01:00\"}"},
  };
  return docs;
}

std::shared_ptr<const JsonGrammar> GrammarOf(const Doc& d) {
  return d.schema.empty() ? AnyJsonObjectGrammar() : CompileJsonSchemaText(d.schema, "schema");
}

// Compares the mask with the definition at every state along each document, counting them in
// `checked`.
void CheckAlongDocuments(const std::shared_ptr<const TokenVocabulary>& vocab, int& checked) {
  for (const Doc& d : Docs()) {
    auto automaton = std::make_shared<const JsonAutomaton>(GrammarOf(d));
    const JsonTokenMask mask(automaton, vocab);
    JsonState s = automaton->Start();
    for (size_t i = 0; i <= d.text.size(); ++i) {
      TokenBits bits;
      mask.Compute(s, bits);
      size_t allowed = 0;
      for (size_t id = 0; id < vocab->size(); ++id) {
        const std::string& b = vocab->bytes(static_cast<int32_t>(id));
        JsonState t = s;
        const bool want = !b.empty() && automaton->Feed(t, b);
        ASSERT_EQ(TestBit(bits, id), want) << "token " << id << " ('" << b << "') after " << i << " bytes of " << d.text;
        allowed += want;
      }
      EXPECT_EQ(*mask.Allowed(s), bits);  // the cached answer is the same
      if (i < d.text.size()) {
        EXPECT_GT(allowed, 0u) << "no token after " << i << " bytes of " << d.text;
      }
      ++checked;
      if (i < d.text.size()) {
        ASSERT_TRUE(automaton->Feed(s, d.text.substr(i, 1))) << "byte " << i << " of " << d.text;
      }
    }
  }
}

TEST(JsonTokenMask, EqualsTheDefinitionOnTinyATokenizer) {
  const Tokenizer tok = Tokenizer::FromFile(std::string(GLANCE_TEST_DATA) + "/tiny-a/tokenizer.json");
  const auto vocab = TokenVocabulary::FromTokenizer(tok);
  EXPECT_EQ(vocab->size(), tok.size());
  int checked = 0;
  CheckAlongDocuments(vocab, checked);
  EXPECT_GT(checked, 250);
}

TEST(JsonTokenMask, EqualsTheDefinitionOnTheDemoModelTokenizer) {
  const Tokenizer tok = Tokenizer::FromFile(DefaultDemoModelDir() + "/tokenizer.json");
  int checked = 0;
  CheckAlongDocuments(TokenVocabulary::FromTokenizer(tok), checked);
  EXPECT_GT(checked, 250);
}

// 40,000 random tokens of 1-10 bytes over JSON punctuation, digits, letters, escapes and UTF-8
// pieces (lead bytes, continuation bytes, invalid bytes), plus every single byte.
std::vector<std::string> SyntheticVocabulary(size_t n, uint32_t seed) {
  const std::vector<std::string> pieces = {"{", "}", "[", "]", "\"", ":", ",", " ", "\n", "\\", "\\u", "\\n",
                                           "0", "1", "7", "-", ".", "e", "E", "+", "a", "b", "k", "x", "true",
                                           "null", "false", "name", "\xC3", "\xA9", "\xE2\x82", "\xAC", "\xF0",
                                           "\x9F\x98\x80", "\xED", "\xA0", "\xFF", "\x01", "\t", "star", "red"};
  std::mt19937 rng(seed);
  std::vector<std::string> v;
  for (int b = 0; b < 256; ++b) v.push_back(std::string(1, static_cast<char>(b)));
  while (v.size() < n) {
    std::string t;
    const int parts = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < parts; ++k) t += pieces[rng() % pieces.size()];
    v.push_back(t.substr(0, 10));
  }
  v[300] = "";  // a hole: never allowed
  return v;
}

TEST(JsonTokenMask, EqualsTheDefinitionOnASyntheticVocabulary) {
  const auto vocab = std::make_shared<const TokenVocabulary>(SyntheticVocabulary(40000, 7));
  const auto t0 = std::chrono::steady_clock::now();
  int checked = 0;
  CheckAlongDocuments(vocab, checked);
  EXPECT_GT(checked, 250);
  std::printf("checked in %.1f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

TEST(JsonTokenMask, NegativeControlADifferentStateGivesADifferentMask) {
  // The comparison above can fail: the mask of one state is not the definition at another.
  const Tokenizer tok = Tokenizer::FromFile(std::string(GLANCE_TEST_DATA) + "/tiny-a/tokenizer.json");
  const auto vocab = TokenVocabulary::FromTokenizer(tok);
  auto automaton = std::make_shared<const JsonAutomaton>(AnyJsonObjectGrammar());
  const JsonTokenMask mask(automaton, vocab);
  JsonState start = automaton->Start(), in_string = start;
  ASSERT_TRUE(automaton->Feed(in_string, "{\"k"));
  TokenBits a, b;
  mask.Compute(start, a);
  mask.Compute(in_string, b);
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace glance::text
