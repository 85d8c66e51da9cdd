#pragma once
// Which tokens may come next under a JSON grammar: every token whose bytes keep the answer a
// prefix of a document the grammar accepts (json_automaton.h), over the tokenizer's byte-level
// vocabulary (token_vocabulary.h). End-of-sequence is not a token here: the caller allows the
// stop ids when JsonAutomaton::CanEnd.
//
// How: the vocabulary's byte trie is walked depth first with the automaton state, stepping one
// byte per trie edge and cutting off a subtree at the first refused byte, so the cost is the
// number of trie nodes whose prefix is still valid, not the vocabulary size. Inside a string
// (most of a document's tokens) nearly every token is valid: there the plain-character sets
// answer all tokens without '"', '\\' or control bytes, and only the trie of those is walked.
// A string with a pattern or format takes that path only once every continuation matches; under
// maxLength the plain tokens beginning more code points than are left are then taken out.
// With several stacks alive (anyOf alternatives) the mask is the union of each stack's.
// Masks are cached by state (a string's body, an object's next key... recur at every step), so a
// state seen before costs a lookup.
//
// Thread contract: thread-safe (the cache has a mutex); shared by every answer of a schema.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/text/json_automaton.h"
#include "core/text/token_vocabulary.h"

namespace glance::text {

using TokenBits = std::vector<uint64_t>;  // bit id % 64 of word id / 64: token id allowed

inline bool TestBit(const TokenBits& bits, size_t id) { return (bits[id / 64] >> (id % 64)) & 1u; }

class JsonTokenMask {
 public:
  JsonTokenMask(std::shared_ptr<const JsonAutomaton> automaton, std::shared_ptr<const TokenVocabulary> vocab);

  // The tokens allowed after `s`, cached (at most kCacheEntries states; then the cache starts over).
  std::shared_ptr<const TokenBits> Allowed(const JsonState& s) const;
  // The same, computed now (tests compare it with a token-by-token check; the bench times it).
  void Compute(const JsonState& s, TokenBits& bits) const;

  const JsonAutomaton& automaton() const { return *automaton_; }
  const TokenVocabulary& vocab() const { return *vocab_; }

  static constexpr size_t kCacheEntries = 128;

 private:
  // Walks the subtree under trie node `from` (0: the root) with the automaton from `s`.
  void Walk(const ByteTrie& trie, uint32_t from, const JsonState& s, TokenBits& bits) const;
  // The same inside a string with a rule (JsonAutomaton::InRuledString): the string's frame alone
  // is stepped until a closing quote, then Walk goes on from there.
  void WalkRuled(const ByteTrie& trie, const JsonState& s, TokenBits& bits) const;

  std::shared_ptr<const JsonAutomaton> automaton_;
  std::shared_ptr<const TokenVocabulary> vocab_;
  // (code points a token begins: its bytes that are not UTF-8 continuation bytes, id), most
  // first; only for grammars with a maxLength.
  std::vector<std::pair<uint32_t, int32_t>> by_code_points_;
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, std::shared_ptr<const TokenBits>> cache_;
};

}  // namespace glance::text
