#include "core/text/token_vocabulary.h"

#include <algorithm>
#include <deque>

#include "core/text/json_automaton.h"
#include "core/text/tokenizer.h"

namespace glance::text {

ByteTrie::ByteTrie(const std::vector<std::string>& tokens, std::vector<int32_t> ids) : ids_(std::move(ids)) {
  auto bytes = [&](int32_t id) -> const std::string& { return tokens[static_cast<size_t>(id)]; };
  std::sort(ids_.begin(), ids_.end(), [&](int32_t a, int32_t b) { return bytes(a) < bytes(b) || (bytes(a) == bytes(b) && a < b); });
  // Breadth first, so each node's children are contiguous. In sorted order a node's subtree is
  // one run of ids_, the tokens ending at it first.
  struct Todo {
    uint32_t node, lo, hi, depth;
  };
  std::deque<Todo> todo{{0, 0, static_cast<uint32_t>(ids_.size()), 0}};
  while (!todo.empty()) {
    const Todo t = todo.front();
    todo.pop_front();
    max_depth_ = std::max<size_t>(max_depth_, t.depth);
    uint32_t i = t.lo;
    while (i < t.hi && bytes(ids_[i]).size() == t.depth) ++i;
    nodes_[t.node].ids_begin = t.lo;
    nodes_[t.node].ids_end = i;
    nodes_[t.node].child_begin = static_cast<uint32_t>(nodes_.size());
    while (i < t.hi) {
      const uint8_t b = static_cast<uint8_t>(bytes(ids_[i])[t.depth]);
      uint32_t j = i;
      while (j < t.hi && static_cast<uint8_t>(bytes(ids_[j])[t.depth]) == b) ++j;
      Node child;
      child.byte = b;
      nodes_.push_back(child);
      todo.push_back({static_cast<uint32_t>(nodes_.size() - 1), i, j, t.depth + 1});
      i = j;
    }
    nodes_[t.node].child_end = static_cast<uint32_t>(nodes_.size());
  }
}

TokenVocabulary::TokenVocabulary(std::vector<std::string> tokens) : tokens_(std::move(tokens)) {
  std::vector<int32_t> all, quoted;
  for (auto& p : plain_) p.assign(words(), 0);
  for (size_t id = 0; id < tokens_.size(); ++id) {
    const std::string& t = tokens_[id];
    if (t.empty()) continue;
    all.push_back(static_cast<int32_t>(id));
    bool special = false;
    for (char ch : t) {
      const uint8_t c = static_cast<uint8_t>(ch);
      special = special || c == '"' || c == '\\' || c < 0x20;
    }
    if (special) {
      quoted.push_back(static_cast<int32_t>(id));
      continue;
    }
    for (int cls = 0; cls < JsonAutomaton::kUtf8Classes; ++cls) {
      int s = cls;
      for (char ch : t) {
        s = JsonAutomaton::Utf8Next(s, static_cast<uint8_t>(ch));
        if (s < 0) break;
      }
      if (s >= 0) plain_[static_cast<size_t>(cls)][id / 64] |= uint64_t{1} << (id % 64);
    }
  }
  all_ = ByteTrie(tokens_, std::move(all));
  quoted_ = ByteTrie(tokens_, std::move(quoted));
}

std::shared_ptr<const TokenVocabulary> TokenVocabulary::FromTokenizer(const Tokenizer& tok) {
  std::vector<std::string> tokens(tok.size());
  for (size_t id = 0; id < tok.size(); ++id) {
    const int32_t i = static_cast<int32_t>(id);
    if (tok.IsSpecial(i)) continue;
    try {
      tokens[id] = tok.TokenBytes(i);
    } catch (const std::exception&) {
      // a hole in the id range: never allowed
    }
  }
  return std::make_shared<const TokenVocabulary>(std::move(tokens));
}

}  // namespace glance::text
