#include "core/text/json_token_mask.h"

#include <algorithm>

namespace glance::text {
namespace {

void SetRange(const ByteTrie& trie, uint32_t begin, uint32_t end, TokenBits& bits) {
  for (uint32_t i = begin; i < end; ++i) {
    const size_t id = static_cast<size_t>(trie.id(i));
    bits[id / 64] |= uint64_t{1} << (id % 64);
  }
}

std::string CacheKey(const JsonState& s) {
  std::string key(s.Key());
  key.append(reinterpret_cast<const char*>(s.ends.data()), s.ends.size() * sizeof(uint32_t));
  return key;
}

// Depth-first over the subtree under trie node `from`: `enter(index, child, depth)` is called for
// each node reached (depth: 1 for `from`'s children) and says whether to go below it. The two
// mask walks differ only in how a byte steps their state.
template <typename Enter>
void DepthFirst(const ByteTrie& trie, uint32_t from, Enter&& enter) {
  struct Pos {
    uint32_t node, next_child;
  };
  std::vector<Pos> path{{from, trie.node(from).child_begin}};
  while (!path.empty()) {
    Pos& p = path.back();
    if (p.next_child == trie.node(p.node).child_end) {
      path.pop_back();
      continue;
    }
    const uint32_t c = p.next_child++;
    const ByteTrie::Node& child = trie.node(c);
    if (enter(c, child, path.size())) path.push_back({c, child.child_begin});
  }
}

}  // namespace

JsonTokenMask::JsonTokenMask(std::shared_ptr<const JsonAutomaton> automaton, std::shared_ptr<const TokenVocabulary> vocab)
    : automaton_(std::move(automaton)), vocab_(std::move(vocab)) {
  bool bounded = false;
  for (const StringRule& r : automaton_->grammar().string_rules) bounded = bounded || r.has_max();
  if (!bounded) return;
  for (size_t id = 0; id < vocab_->size(); ++id) {
    uint32_t n = 0;
    for (char c : vocab_->bytes(static_cast<int32_t>(id))) n += (static_cast<uint8_t>(c) & 0xC0) != 0x80;
    by_code_points_.push_back({n, static_cast<int32_t>(id)});
  }
  std::sort(by_code_points_.begin(), by_code_points_.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
}

void JsonTokenMask::Walk(const ByteTrie& trie, uint32_t from, const JsonState& s, TokenBits& bits) const {
  // states[d]: the state after the first d bytes of the current path.
  std::vector<JsonState> states(trie.max_depth() + 1);
  states[0] = s;
  DepthFirst(trie, from, [&](uint32_t, const ByteTrie::Node& child, size_t depth) {
    automaton_->Step(states[depth - 1], child.byte, states[depth]);
    if (states[depth].dead()) return false;
    SetRange(trie, child.ids_begin, child.ids_end, bits);
    return true;
  });
}

void JsonTokenMask::Compute(const JsonState& s, TokenBits& bits) const {
  bits.assign(vocab_->words(), 0);
  if (s.dead()) return;
  if (s.stacks() > 1) {
    // The stacks step independently (an anyOf's alternatives), so a token is allowed when it is
    // allowed to one of them: the union of each stack's mask, each one free to take the string
    // fast path (two alternatives inside the same string would otherwise walk the whole trie).
    JsonState one;
    TokenBits part;
    uint32_t begin = 0;
    for (uint32_t end : s.ends) {
      one.frames.assign(s.frames.begin() + begin, s.frames.begin() + end);
      one.ends.assign(1, end - begin);
      Compute(one, part);
      for (size_t w = 0; w < bits.size(); ++w) bits[w] |= part[w];
      begin = end;
    }
    return;
  }
  int cls = 0;
  uint32_t room = UINT32_MAX;
  if (automaton_->InStringBody(s, cls, room)) {
    bits = vocab_->plain(cls);
    for (const auto& [n, id] : by_code_points_) {  // maxLength: too long plain tokens out
      if (n <= room) break;
      bits[static_cast<size_t>(id) / 64] &= ~(uint64_t{1} << (static_cast<size_t>(id) % 64));
    }
    Walk(vocab_->quoted(), 0, s, bits);
  } else if (automaton_->InRuledString(s)) {
    WalkRuled(vocab_->all(), s, bits);
  } else {
    Walk(vocab_->all(), 0, s, bits);
  }
}

void JsonTokenMask::WalkRuled(const ByteTrie& trie, const JsonState& s, TokenBits& bits) const {
  std::vector<JsonFrame> frames(trie.max_depth() + 1);
  frames[0] = s.frames.back();
  JsonState closed;
  closed.frames.assign(s.frames.begin(), s.frames.end() - 1);
  closed.ends.assign(1, static_cast<uint32_t>(closed.frames.size()));
  DepthFirst(trie, 0, [&](uint32_t c, const ByteTrie::Node& child, size_t depth) {
    JsonFrame f = frames[depth - 1];
    const int r = automaton_->StepRuledString(f, child.byte);
    if (r == 0) return false;
    SetRange(trie, child.ids_begin, child.ids_end, bits);
    if (r == 2) {  // the string closed: the rest of the path is the whole automaton's
      if (child.child_begin != child.child_end) Walk(trie, c, closed, bits);
      return false;
    }
    frames[depth] = f;
    return true;
  });
}

std::shared_ptr<const TokenBits> JsonTokenMask::Allowed(const JsonState& s) const {
  const std::string key = CacheKey(s);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
  }
  auto bits = std::make_shared<TokenBits>();
  Compute(s, *bits);
  std::lock_guard<std::mutex> lock(mu_);
  if (cache_.size() >= kCacheEntries) cache_.clear();
  cache_.emplace(key, bits);
  return bits;
}

}  // namespace glance::text
