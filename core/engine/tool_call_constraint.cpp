#include "core/engine/tool_call_constraint.h"

#include <algorithm>
#include <limits>

#include "core/util/error.h"

namespace glance {
namespace {

using Bits = std::vector<uint64_t>;

class ToolCallConstraint final : public TokenConstraint {
 public:
  ToolCallConstraint(std::shared_ptr<const ToolCallConstraintSpec> spec, std::vector<int32_t> stops)
      : spec_(std::move(spec)), stops_(std::move(stops)), state_(spec_->automaton().Start()) {}

  void MaskLogits(std::span<float> logits) override {
    constexpr float kOff = -std::numeric_limits<float>::infinity();
    if (ended_) {
      std::fill(logits.begin(), logits.end(), kOff);
      return;
    }
    const bool can_end = spec_->automaton().CanEnd(state_);
    std::vector<float> stop_logits;
    for (int32_t id : stops_)
      stop_logits.push_back(id >= 0 && static_cast<size_t>(id) < logits.size() ? logits[static_cast<size_t>(id)] : kOff);
    const std::shared_ptr<const Bits> bits = spec_->Allowed(state_);
    const size_t n = std::min(logits.size(), bits->size() * 64);
    bool any = false;
    for (size_t i = 0; i < n; ++i) {
      if (((*bits)[i / 64] >> (i % 64)) & 1u) any = true;
      else logits[i] = kOff;
    }
    std::fill(logits.begin() + static_cast<std::ptrdiff_t>(n), logits.end(), kOff);
    for (size_t k = 0; k < stops_.size(); ++k) {
      const int32_t id = stops_[k];
      if (id < 0 || static_cast<size_t>(id) >= logits.size()) continue;
      logits[static_cast<size_t>(id)] = can_end ? stop_logits[k] : kOff;
    }
    if (!any && !can_end) throw Error("constrained decoding: the tool-call format allows no token here");
  }

  void Accept(int32_t token) override {
    if (ended_) throw Error("constrained decoding: a token after the answer's stop token");
    if (std::find(stops_.begin(), stops_.end(), token) != stops_.end()) {
      if (!spec_->automaton().CanEnd(state_)) throw Error("constrained decoding: the answer stopped inside a tool call");
      ended_ = true;
      return;
    }
    const std::shared_ptr<const Bits> bits = spec_->Allowed(state_);
    const size_t id = static_cast<size_t>(token);
    if (token < 0 || id >= bits->size() * 64 || !(((*bits)[id / 64] >> (id % 64)) & 1u))
      throw Error("constrained decoding: token " + std::to_string(token) + " is not allowed by the tool-call format here");
    spec_->automaton().Feed(state_, spec_->vocab().bytes(token));
  }

  bool Complete() const override { return ended_ || spec_->automaton().CanEnd(state_); }

 private:
  std::shared_ptr<const ToolCallConstraintSpec> spec_;
  std::vector<int32_t> stops_;
  text::ToolCallState state_;
  bool ended_ = false;
};

}  // namespace

ToolCallConstraintSpec::ToolCallConstraintSpec(const std::vector<std::string>& tools, const std::string& only,
                                               int max_calls, std::shared_ptr<const text::TokenVocabulary> vocab)
    : automaton_(std::make_shared<const text::ToolCallAutomaton>(tools, only, max_calls)), vocab_(std::move(vocab)) {}

std::unique_ptr<TokenConstraint> ToolCallConstraintSpec::Start(const std::vector<int32_t>& stop_ids) const {
  return std::make_unique<ToolCallConstraint>(shared_from_this(), stop_ids);
}

std::shared_ptr<const Bits> ToolCallConstraintSpec::Allowed(const text::ToolCallState& s) const {
  const std::string key = s.Key();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
  }
  auto bits = std::make_shared<Bits>(vocab_->words(), 0);
  // Depth-first over the vocabulary's byte trie; states[d] is the state after d bytes.
  const text::ByteTrie& trie = vocab_->all();
  std::vector<text::ToolCallState> states(trie.max_depth() + 1);
  states[0] = s;
  struct Pos {
    uint32_t node, next_child;
  };
  std::vector<Pos> path{{0, trie.root().child_begin}};
  while (!path.empty()) {
    Pos& p = path.back();
    const text::ByteTrie::Node& n = trie.node(p.node);
    if (p.next_child == n.child_end) {
      path.pop_back();
      continue;
    }
    const uint32_t c = p.next_child++;
    const text::ByteTrie::Node& child = trie.node(c);
    const size_t depth = path.size();
    automaton_->Step(states[depth - 1], child.byte, states[depth]);
    if (states[depth].dead()) continue;
    for (uint32_t i = child.ids_begin; i < child.ids_end; ++i) {
      const size_t id = static_cast<size_t>(trie.id(i));
      (*bits)[id / 64] |= uint64_t{1} << (id % 64);
    }
    path.push_back({c, child.child_begin});
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (cache_.size() >= kCacheEntries) cache_.clear();
  cache_.emplace(key, bits);
  return bits;
}

}  // namespace glance
