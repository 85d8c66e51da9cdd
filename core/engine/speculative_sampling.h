#pragma once
// The speculative-sampling acceptance rule (Leviathan et al. 2023, arXiv:2211.17192,
// Algorithm 1; Chen et al. 2023, arXiv:2302.01318): with the target distribution p, the draft
// distribution q and a draft token x drawn from q, accept x with probability min(1, p(x)/q(x));
// otherwise draw from the residual norm(max(0, p - q)). The token returned is distributed
// exactly as p, whatever q is, so sampling with drafts leaves the output distribution as it was.
//
// Session applies it when sampling with speculation on: p and q are the Sampler's processed
// distributions (penalties, temperature, top-k/p, min-p) of the verify row and of the MTP's
// logits. Tested statistically in tests/engine/test_speculative_sampling.cpp.
#include <cstdint>
#include <random>
#include <span>

namespace glance {

struct SpeculativeChoice {
  int32_t token = 0;
  bool accepted = false;  // the draft itself (else a draw from the residual)
};

// p, q: probabilities over the same vocabulary (each summing to 1; q(draft) > 0).
SpeculativeChoice AcceptOrResample(std::span<const float> p, std::span<const float> q, int32_t draft,
                                   std::mt19937_64& rng);

}  // namespace glance
