#include "core/engine/json_constraint.h"

#include <algorithm>
#include <functional>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/text/tokenizer.h"
#include "core/util/error.h"

namespace glance {
namespace {

class JsonConstraint final : public TokenConstraint {
 public:
  // Holds the spec's automaton and mask, so it runs on after the spec is dropped from a cache.
  JsonConstraint(std::shared_ptr<const text::JsonAutomaton> automaton, std::shared_ptr<const text::JsonTokenMask> mask,
                 std::vector<int32_t> stops)
      : automaton_(std::move(automaton)), mask_(std::move(mask)), stops_(std::move(stops)), state_(automaton_->Start()) {}

  void MaskLogits(std::span<float> logits) override {
    constexpr float kOff = -std::numeric_limits<float>::infinity();
    if (ended_) {  // nothing may follow a stop token
      std::fill(logits.begin(), logits.end(), kOff);
      return;
    }
    const bool can_end = automaton_->CanEnd(state_);
    std::vector<float> stop_logits;
    for (int32_t id : stops_)
      stop_logits.push_back(id >= 0 && static_cast<size_t>(id) < logits.size() ? logits[static_cast<size_t>(id)] : kOff);
    const std::shared_ptr<const text::TokenBits> bits = mask_->Allowed(state_);
    const size_t n = std::min(logits.size(), mask_->vocab().size());
    bool any = false;
    for (size_t w = 0; w * 64 < n; ++w) {
      const uint64_t word = (*bits)[w];
      any = any || word != 0;
      if (word == ~uint64_t{0}) continue;
      const size_t end = std::min(n, w * 64 + 64);
      for (size_t i = w * 64; i < end; ++i)
        if (!((word >> (i - w * 64)) & 1u)) logits[i] = kOff;
    }
    std::fill(logits.begin() + static_cast<std::ptrdiff_t>(n), logits.end(), kOff);
    for (size_t k = 0; k < stops_.size(); ++k) {
      const int32_t id = stops_[k];
      if (id < 0 || static_cast<size_t>(id) >= logits.size()) continue;
      logits[static_cast<size_t>(id)] = can_end ? stop_logits[k] : kOff;
    }
    if (!any && !can_end) throw Error("constrained decoding: the JSON grammar allows no token here (the schema nests deeper than the decoder allows?)");
  }

  void Accept(int32_t token) override {
    if (ended_) throw Error("constrained decoding: a token after the answer's stop token");
    if (std::find(stops_.begin(), stops_.end(), token) != stops_.end()) {
      if (!automaton_->CanEnd(state_)) throw Error("constrained decoding: the answer stopped before its JSON document was whole");
      ended_ = true;
      return;
    }
    if (token < 0 || static_cast<size_t>(token) >= mask_->vocab().size() || mask_->vocab().bytes(token).empty() ||
        !automaton_->Feed(state_, mask_->vocab().bytes(token)))
      throw Error("constrained decoding: token " + std::to_string(token) + " is not allowed by the JSON grammar here");
  }

  bool Complete() const override { return ended_ || automaton_->CanEnd(state_); }

 private:
  std::shared_ptr<const text::JsonAutomaton> automaton_;
  std::shared_ptr<const text::JsonTokenMask> mask_;
  std::vector<int32_t> stops_;
  text::JsonState state_;
  bool ended_ = false;
};

}  // namespace

JsonConstraintSpec::JsonConstraintSpec(std::shared_ptr<const text::JsonGrammar> grammar,
                                       std::shared_ptr<const text::TokenVocabulary> vocab)
    : automaton_(std::make_shared<const text::JsonAutomaton>(std::move(grammar))),
      mask_(std::make_shared<const text::JsonTokenMask>(automaton_, std::move(vocab))) {}

std::unique_ptr<TokenConstraint> JsonConstraintSpec::Start(const std::vector<int32_t>& stop_ids) const {
  return std::make_unique<JsonConstraint>(automaton_, mask_, stop_ids);
}

std::shared_ptr<const text::TokenVocabulary> JsonConstraintCache::vocab() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!vocab_) vocab_ = text::TokenVocabulary::FromTokenizer(tok_);
  return vocab_;
}

std::shared_ptr<const JsonConstraintSpec> JsonConstraintCache::Remember(
    const std::string& key, const std::function<std::shared_ptr<const text::JsonGrammar>()>& compile) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = specs_.find(key);
    if (it != specs_.end()) return it->second;
  }
  auto spec = std::make_shared<const JsonConstraintSpec>(compile(), vocab());
  std::lock_guard<std::mutex> lock(mu_);
  if (specs_.size() >= kMaxSchemas) specs_.clear();
  specs_.emplace(key, spec);
  return spec;
}

std::shared_ptr<const JsonConstraintSpec> JsonConstraintCache::AnyObject() {
  return Remember("json_object", [] { return text::AnyJsonObjectGrammar(); });
}

std::shared_ptr<const JsonConstraintSpec> JsonConstraintCache::ForSchemaText(const std::string& text,
                                                                             const std::string& source) {
  return Remember("text:" + text, [&] { return text::CompileJsonSchemaText(text, source); });
}

std::shared_ptr<const JsonConstraintSpec> JsonConstraintCache::ForSchema(const nlohmann::json& schema) {
  return Remember("json:" + schema.dump(), [&] { return text::CompileJsonSchema(schema); });
}

}  // namespace glance
