// JSON schemas from requests (response_format, glance-cli caption --json-schema) and the
// documents the automaton reads (core/text/json_grammar.h, json_automaton.h, json_token_mask.h).
// One input is "<schema>\0<document>": the schema is compiled (a refusal is a glance::Error),
// the document stepped byte by byte, and the token mask computed over a small vocabulary at the
// first states along it. Nothing may crash, hang or grow without bound.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/text/json_automaton.h"
#include "core/text/json_grammar.h"
#include "core/text/json_token_mask.h"
#include "core/util/error.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

std::shared_ptr<const glance::text::TokenVocabulary> SmallVocabulary() {
  static const auto vocab = [] {
    std::vector<std::string> tokens;
    for (int b = 0; b < 256; ++b) tokens.push_back(std::string(1, static_cast<char>(b)));
    for (const char* t : {"{\"", "\":", "\",", "\"}", "[1", "true", "null", "\\u00", "\xC3\xA9", "\xE2\x82", ", \"", "  "})
      tokens.push_back(t);
    return std::make_shared<const glance::text::TokenVocabulary>(std::move(tokens));
  }();
  return vocab;
}

void Run(const std::shared_ptr<const glance::text::JsonGrammar>& grammar, const std::string& doc) {
  auto automaton = std::make_shared<const glance::text::JsonAutomaton>(grammar);
  const glance::text::JsonTokenMask mask(automaton, SmallVocabulary());
  glance::text::JsonState s = automaton->Start();
  glance::text::TokenBits bits;
  for (size_t i = 0; i < doc.size() && !s.dead(); ++i) {
    if (i < 16) mask.Compute(s, bits);
    automaton->Feed(s, doc.substr(i, 1));
  }
  (void)automaton->CanEnd(s);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = glance::fuzz::SplitNul(glance::fuzz::AsText(data, size), 2);
  const std::string doc(parts[1]);
  try {
    Run(glance::text::CompileJsonSchemaText(std::string(parts[0]), "fuzz/schema.json"), doc);
  } catch (const glance::Error&) {
  }
  static const auto any_object = glance::text::AnyJsonObjectGrammar();
  Run(any_object, doc);
  return 0;
}
