#pragma once
// The tokenizer's vocabulary as bytes, arranged for constrained decoding (json_token_mask.h):
// a byte trie of every token (walked with an automaton state: a byte the automaton refuses cuts
// off every token below it), a second trie of only the tokens holding a '"', '\\' or control
// byte, and, for each UTF-8 class a JSON string can be in (json_automaton.h), the set of tokens
// that are plain string characters from there. Inside a string nearly every token is allowed;
// the sets answer those at once and only the second, small trie is walked.
//
// Built once per tokenizer (json_constraint.h keeps it with the engine's schema cache).
// Thread contract: immutable after construction.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace glance {
class Tokenizer;
}

namespace glance::text {

class ByteTrie {
 public:
  struct Node {
    uint32_t child_begin = 0, child_end = 0;  // children: nodes_[child_begin, child_end)
    uint32_t ids_begin = 0, ids_end = 0;      // tokens ending here: ids_[ids_begin, ids_end)
    uint8_t byte = 0;                          // the byte leading here from the parent
  };
  ByteTrie() = default;
  // Tokens `ids` with their bytes `tokens[id]` (none empty).
  ByteTrie(const std::vector<std::string>& tokens, std::vector<int32_t> ids);
  const Node& root() const { return nodes_[0]; }
  const Node& node(uint32_t i) const { return nodes_[i]; }
  int32_t id(uint32_t i) const { return ids_[i]; }
  size_t nodes() const { return nodes_.size(); }
  size_t max_depth() const { return max_depth_; }

 private:
  std::vector<Node> nodes_{1};
  std::vector<int32_t> ids_;
  size_t max_depth_ = 0;
};

class TokenVocabulary {
 public:
  // tokens[id] = the bytes id stands for; an empty entry is never allowed (special tokens,
  // holes in the id range).
  explicit TokenVocabulary(std::vector<std::string> tokens);
  // Every id of `tok` by TokenBytes, special tokens left out (empty).
  static std::shared_ptr<const TokenVocabulary> FromTokenizer(const Tokenizer& tok);

  size_t size() const { return tokens_.size(); }
  size_t words() const { return (tokens_.size() + 63) / 64; }  // of a mask's bit set
  const std::string& bytes(int32_t id) const { return tokens_[static_cast<size_t>(id)]; }
  const ByteTrie& all() const { return all_; }
  const ByteTrie& quoted() const { return quoted_; }
  // Bit set of the tokens that are plain string characters from UTF-8 class `cls`.
  const std::vector<uint64_t>& plain(int cls) const { return plain_[static_cast<size_t>(cls)]; }

 private:
  std::vector<std::string> tokens_;
  ByteTrie all_, quoted_;
  std::array<std::vector<uint64_t>, 8> plain_;
};

}  // namespace glance::text
