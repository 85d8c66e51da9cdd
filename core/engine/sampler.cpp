#include "core/engine/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "core/util/error.h"

namespace glance {

void SamplingParams::Validate() const {
  auto bad = [](const std::string& what) { throw Error("sampling: " + what); };
  if (!greedy && !(temperature > 0.0f && temperature <= 100.0f)) bad("temperature must be in (0, 100]");
  if (top_k < 0) bad("top_k must be >= 0 (0 turns it off)");
  if (!(top_p > 0.0f && top_p <= 1.0f)) bad("top_p must be in (0, 1]");
  if (!(min_p >= 0.0f && min_p < 1.0f)) bad("min_p must be in [0, 1)");
  if (!(repetition_penalty > 0.0f && repetition_penalty <= 10.0f)) bad("repetition_penalty must be in (0, 10]");
  if (!(presence_penalty >= -2.0f && presence_penalty <= 2.0f)) bad("presence_penalty must be in [-2, 2]");
}

int32_t Argmax(const float* logits, int64_t n) {
  int64_t best = 0;
  for (int64_t i = 1; i < n; ++i)
    if (logits[i] > logits[best]) best = i;
  return static_cast<int32_t>(best);
}

Sampler::Sampler(const SamplingParams& params, int64_t valid_vocab, uint64_t seed)
    : params_(params), valid_vocab_(valid_vocab), rng_(seed) {
  params_.Validate();
}

int64_t Sampler::ApplyPenalties(std::span<float> logits, std::span<const int32_t> context,
                                std::span<const int32_t> generated) const {
  const int64_t n = std::min<int64_t>(static_cast<int64_t>(logits.size()), valid_vocab_);
  if (n <= 0) throw Error("sampling: empty vocabulary");
  // Penalties (HF RepetitionPenaltyLogitsProcessor; OpenAI-style presence), once per distinct id.
  if (params_.repetition_penalty != 1.0f) {
    std::unordered_set<int32_t> seen(context.begin(), context.end());
    for (int32_t id : seen) {
      if (id < 0 || id >= n) continue;
      float& l = logits[static_cast<size_t>(id)];
      l = l > 0.0f ? l / params_.repetition_penalty : l * params_.repetition_penalty;
    }
  }
  if (params_.presence_penalty != 0.0f) {
    std::unordered_set<int32_t> seen(generated.begin(), generated.end());
    for (int32_t id : seen)
      if (id >= 0 && id < n) logits[static_cast<size_t>(id)] -= params_.presence_penalty;
  }
  return n;
}

double Sampler::Candidates(std::span<const float> logits, int64_t n) {
  // Candidates sorted by logit; top-k first keeps the sort small on 248k-entry rows.
  const float inv_t = 1.0f / params_.temperature;
  int64_t k = params_.top_k > 0 ? std::min<int64_t>(params_.top_k, n) : n;
  scratch_.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) scratch_[static_cast<size_t>(i)] = {logits[static_cast<size_t>(i)] * inv_t, static_cast<int32_t>(i)};
  auto by_logit = [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); };
  std::partial_sort(scratch_.begin(), scratch_.begin() + k, scratch_.end(), by_logit);
  scratch_.resize(static_cast<size_t>(k));
  // Softmax over the survivors.
  const float max_l = scratch_[0].first;
  double total = 0.0;
  for (auto& [l, id] : scratch_) {
    l = std::exp(l - max_l);
    total += static_cast<double>(l);
  }
  for (auto& c : scratch_) c.first = static_cast<float>(static_cast<double>(c.first) / total);
  // Tokens with probability 0 (a constraint's -inf, token_constraint.h) are no candidates:
  // Sample's fallback for rounding takes the last candidate, which must be a possible one.
  while (scratch_.size() > 1 && scratch_.back().first <= 0.0f) scratch_.pop_back();
  // min-p: drop tokens below min_p × the top probability.
  if (params_.min_p > 0.0f) {
    const float floor = params_.min_p * scratch_[0].first;
    while (scratch_.size() > 1 && scratch_.back().first < floor) scratch_.pop_back();
  }
  // top-p: smallest prefix whose mass reaches top_p.
  if (params_.top_p < 1.0f) {
    double mass = 0.0;
    size_t keep = 0;
    while (keep < scratch_.size()) {
      mass += static_cast<double>(scratch_[keep].first);
      ++keep;
      if (mass >= static_cast<double>(params_.top_p)) break;
    }
    scratch_.resize(std::max<size_t>(keep, 1));
  }
  double mass = 0.0;
  for (const auto& c : scratch_) mass += static_cast<double>(c.first);
  return mass;
}

int32_t Sampler::Sample(std::span<float> logits, std::span<const int32_t> context,
                        std::span<const int32_t> generated) {
  const int64_t n = ApplyPenalties(logits, context, generated);
  if (params_.greedy) return Argmax(logits.data(), n);
  const double mass = Candidates(logits, n);
  std::uniform_real_distribution<double> u(0.0, mass);
  double r = u(rng_);
  for (const auto& c : scratch_) {
    r -= static_cast<double>(c.first);
    if (r <= 0.0) return c.second;
  }
  return scratch_.back().second;
}

std::vector<float> Sampler::Distribution(std::span<float> logits, std::span<const int32_t> context,
                                         std::span<const int32_t> generated) {
  const int64_t n = ApplyPenalties(logits, context, generated);
  std::vector<float> p(logits.size(), 0.0f);
  if (params_.greedy) {
    p[static_cast<size_t>(Argmax(logits.data(), n))] = 1.0f;
    return p;
  }
  const double mass = Candidates(logits, n);
  for (const auto& [prob, id] : scratch_) p[static_cast<size_t>(id)] = static_cast<float>(static_cast<double>(prob) / mass);
  return p;
}

int32_t Sampler::Draw(std::span<const float> probs) {
  double mass = 0.0;
  for (float v : probs) mass += static_cast<double>(v);
  return DrawIndex(probs, mass, rng_);
}

}  // namespace glance
