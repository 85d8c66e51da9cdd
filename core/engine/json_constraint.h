#pragma once
// JSON constrained decoding for sessions (issue 29): a compiled JSON schema, or any JSON object
// (response_format json_object), as a TokenConstraintSpec (token_constraint.h). The grammar is
// core/text/json_grammar.h's, the automaton json_automaton.h's, the token mask
// json_token_mask.h's.
//
// JsonConstraintCache keeps one tokenizer's vocabulary index (built at the first use, ~0.1 s for
// a 248k-token vocabulary) and the compiled schemas by their text, so a schema sent again (every
// request of a client, every image of a folder) is compiled once and its cached masks reused.
//
// Thread contract: JsonConstraintCache and the specs it hands out are thread-safe.
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "core/engine/token_constraint.h"
#include "core/text/json_token_mask.h"

namespace glance {

class Tokenizer;

class JsonConstraintSpec final : public TokenConstraintSpec {
 public:
  JsonConstraintSpec(std::shared_ptr<const text::JsonGrammar> grammar,
                     std::shared_ptr<const text::TokenVocabulary> vocab);
  std::unique_ptr<TokenConstraint> Start(const std::vector<int32_t>& stop_ids) const override;
  const text::JsonTokenMask& mask() const { return *mask_; }
  const text::JsonAutomaton& automaton() const { return *automaton_; }

 private:
  std::shared_ptr<const text::JsonAutomaton> automaton_;
  std::shared_ptr<const text::JsonTokenMask> mask_;
};

class JsonConstraintCache {
 public:
  // `tok` must outlive the cache (it is the engine's).
  explicit JsonConstraintCache(const Tokenizer& tok) : tok_(tok) {}

  // Any JSON object (response_format {"type": "json_object"}).
  std::shared_ptr<const JsonConstraintSpec> AnyObject();
  // A JSON schema's text (properties in the order written); `source` names it in errors.
  // Throws glance::Error naming the keyword the schema uses and this cannot enforce.
  std::shared_ptr<const JsonConstraintSpec> ForSchemaText(const std::string& text, const std::string& source);
  // A parsed schema (nlohmann::json sorts keys: properties come in sorted order).
  std::shared_ptr<const JsonConstraintSpec> ForSchema(const nlohmann::json& schema);

  std::shared_ptr<const text::TokenVocabulary> vocab();

  // Each schema keeps up to JsonTokenMask::kCacheEntries masks of vocabulary/8 bytes (128 x 31 KiB
  // for a 248k vocabulary): 16 schemas hold at most ~62 MiB.
  static constexpr size_t kMaxSchemas = 16;

 private:
  std::shared_ptr<const JsonConstraintSpec> Remember(const std::string& key,
                                                     const std::function<std::shared_ptr<const text::JsonGrammar>()>& compile);
  const Tokenizer& tok_;
  std::mutex mu_;
  std::shared_ptr<const text::TokenVocabulary> vocab_;
  std::map<std::string, std::shared_ptr<const JsonConstraintSpec>> specs_;
};

}  // namespace glance
