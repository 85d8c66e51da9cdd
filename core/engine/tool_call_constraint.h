#pragma once
// Tool-call constrained decoding for sessions (issue 29): the answer is one or more calls of the
// allowed functions in the chat template's format, their parameters following the tools'
// schemas (core/text/tool_call_automaton.h), as a TokenConstraintSpec (token_constraint.h). A
// server's tool_choice "required" (any of the request's tools) or a named function (that one).
//
// The mask: the vocabulary's byte trie walked with the automaton state, a subtree cut at the
// first refused byte (as json_token_mask.h does), cached by state: a string value's body, where
// nearly every token is allowed, recurs at every step.
//
// Thread contract: a spec is immutable apart from its mask cache (mutex); each answer gets its
// own constraint.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/engine/token_constraint.h"
#include "core/text/token_vocabulary.h"
#include "core/text/tool_call_automaton.h"

namespace glance {

// Made with std::make_shared (each answer's constraint keeps its spec alive).
class ToolCallConstraintSpec final : public TokenConstraintSpec,
                                     public std::enable_shared_from_this<ToolCallConstraintSpec> {
 public:
  // Throws glance::Error naming a parameter schema's keyword the automaton cannot enforce.
  ToolCallConstraintSpec(const std::vector<std::string>& tools, const std::string& only, int max_calls,
                         std::shared_ptr<const text::TokenVocabulary> vocab);
  std::unique_ptr<TokenConstraint> Start(const std::vector<int32_t>& stop_ids) const override;

  const text::ToolCallAutomaton& automaton() const { return *automaton_; }
  const text::TokenVocabulary& vocab() const { return *vocab_; }
  // The tokens allowed after `s` (bit id % 64 of word id / 64), cached.
  std::shared_ptr<const std::vector<uint64_t>> Allowed(const text::ToolCallState& s) const;

  static constexpr size_t kCacheEntries = 256;

 private:
  std::shared_ptr<const text::ToolCallAutomaton> automaton_;
  std::shared_ptr<const text::TokenVocabulary> vocab_;
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, std::shared_ptr<const std::vector<uint64_t>>> cache_;
};

}  // namespace glance
