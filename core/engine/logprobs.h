#pragma once
// Log-probabilities of generated tokens (OpenAI's `logprobs` / `top_logprobs`, issue 29).
//
// Which distribution: the one the token was sampled from before truncation — log-softmax of
// the logits after the repetition/presence penalties, the constraint mask (token_constraint.h)
// and the temperature (1 when greedy), over the tokenizer's ids; top-k, top-p and min-p are
// not applied, so every allowed token has a finite value and a greedy answer's figures still
// say how sure the model was. At temperature 1 without penalties or a constraint these are the
// model's own log-probabilities. A token the constraint refuses has none (it is never listed).
#include <cstdint>
#include <span>
#include <vector>

namespace glance {

struct TokenLogprob {
  int32_t token = 0;
  float logprob = 0.0f;
};

struct GeneratedLogprobs {
  TokenLogprob chosen;
  std::vector<TokenLogprob> top;  // the `top` likeliest, most likely first (ties: lower id first)
};

inline constexpr int kMaxTopLogprobs = 20;  // OpenAI's limit

// Over logits[0, n) (as the sampler left them: penalised, masked), at `temperature`.
GeneratedLogprobs ComputeLogprobs(std::span<const float> logits, int64_t n, float temperature, int32_t chosen, int top);

}  // namespace glance
