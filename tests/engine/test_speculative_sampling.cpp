// The speculative-sampling rule (core/engine/speculative_sampling.h) on a small vocabulary:
// drafts from q, the rule applied, and the tokens' frequencies tested against p with a
// chi-squared test; accepting every draft (the negative control) gives q instead. Also with q
// from a reduced draft vocabulary (core/lm/mtp.h): the Sampler's distribution of logits that
// are -inf past the first ids, as LanguageModel::Draft hands them over.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "core/engine/sampler.h"
#include "core/engine/speculative_sampling.h"

namespace glance {
namespace {

// Pearson's chi-squared statistic of `counts` against probabilities `p` over n draws.
double ChiSquared(const std::vector<int>& counts, const std::vector<float>& p, int n) {
  double chi = 0.0;
  for (size_t i = 0; i < p.size(); ++i) {
    const double e = static_cast<double>(p[i]) * n;
    chi += (counts[i] - e) * (counts[i] - e) / e;
  }
  return chi;
}

int DrawFrom(const std::vector<float>& q, std::mt19937_64& rng) {
  std::discrete_distribution<int> d(q.begin(), q.end());
  return d(rng);
}

// 5 degrees of freedom: P(chi2 > 25.7) = 1e-4, so a correct rule fails 1 run in 10,000.
constexpr double kChi5 = 25.7;

TEST(SpeculativeSampling, OutputIsDistributedAsTheTarget) {
  const std::vector<float> p = {0.40f, 0.25f, 0.15f, 0.10f, 0.07f, 0.03f};
  const std::vector<float> q = {0.10f, 0.30f, 0.05f, 0.30f, 0.05f, 0.20f};
  std::mt19937_64 rng(12345);
  const int n = 200000;
  std::vector<int> counts(p.size()), accepted_only(p.size());
  int accepted = 0;
  for (int i = 0; i < n; ++i) {
    const int draft = DrawFrom(q, rng);
    const SpeculativeChoice c = AcceptOrResample(p, q, draft, rng);
    ++counts[static_cast<size_t>(c.token)];
    if (c.accepted) {
      ++accepted;
      EXPECT_EQ(c.token, draft);
    } else {
      EXPECT_GT(p[static_cast<size_t>(c.token)], q[static_cast<size_t>(c.token)]) << "resampled where p <= q";
    }
    ++accepted_only[static_cast<size_t>(draft)];
  }
  const double chi = ChiSquared(counts, p, n);
  std::printf("chi-squared vs p: %.2f (5 dof); acceptance %.4f\n", chi, static_cast<double>(accepted) / n);
  EXPECT_LT(chi, kChi5);
  // The acceptance rate is sum_x min(p(x), q(x)) (Leviathan et al. 2023, §3.5).
  double expect = 0.0;
  for (size_t i = 0; i < p.size(); ++i) expect += static_cast<double>(std::min(p[i], q[i]));
  EXPECT_NEAR(static_cast<double>(accepted) / n, expect, 0.005);
  // Negative control: keeping every draft gives q, which the same test rejects.
  EXPECT_GT(ChiSquared(accepted_only, p, n), 100 * kChi5);
}

// 7 degrees of freedom: P(chi2 > 29.9) = 1e-4.
constexpr double kChi7 = 29.9;

TEST(SpeculativeSampling, ReducedDraftVocabularyKeepsTheTarget) {
  // Target logits over 8 ids; the draft's own (different) logits scored on ids 0..4 only.
  const std::vector<float> target = {1.0f, 0.2f, 0.5f, -0.3f, 0.1f, 0.9f, 0.4f, -0.5f};
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> draft = {0.3f, 0.8f, -0.2f, 0.6f, 0.0f, -inf, -inf, -inf};
  SamplingParams sp;
  sp.greedy = false;
  sp.temperature = 0.8f;
  sp.top_k = 0;
  sp.top_p = 1.0f;
  Sampler sampler(sp, 8, 99);
  std::vector<float> t = target, d = draft;
  const std::vector<float> p = sampler.Distribution(t, {}, {});
  const std::vector<float> q = sampler.Distribution(d, {}, {});
  for (size_t i = 5; i < q.size(); ++i) ASSERT_EQ(q[i], 0.0f) << "id " << i << " is outside the draft vocabulary";
  std::mt19937_64 rng(2024);
  const int n = 200000;
  std::vector<int> counts(p.size()), drafted(p.size());
  int accepted = 0;
  for (int i = 0; i < n; ++i) {
    const int32_t x = sampler.Draw(q);
    ASSERT_LT(x, 5);
    const SpeculativeChoice c = AcceptOrResample(p, q, x, rng);
    ++counts[static_cast<size_t>(c.token)];
    ++drafted[static_cast<size_t>(x)];
    accepted += c.accepted;
  }
  const double chi = ChiSquared(counts, p, n);
  std::printf("reduced draft vocabulary: chi-squared vs p %.2f (7 dof); acceptance %.4f\n", chi,
              static_cast<double>(accepted) / n);
  EXPECT_LT(chi, kChi7);
  double expect = 0.0;  // Σ min(p, q): ids outside the draft vocabulary add nothing
  for (size_t i = 0; i < p.size(); ++i) expect += static_cast<double>(std::min(p[i], q[i]));
  EXPECT_NEAR(static_cast<double>(accepted) / n, expect, 0.005);
  // Ids 5..7 are never drafted; they come from the residual, as often as p says.
  for (size_t i = 5; i < p.size(); ++i) EXPECT_GT(counts[i], 0.9 * p[i] * n) << "id " << i;
  // Negative control: the drafts themselves (q, zero past id 4) fail the same test.
  EXPECT_GT(ChiSquared(drafted, p, n), 100 * kChi7);
}

TEST(SpeculativeSampling, EqualDistributionsAlwaysAccept) {
  const std::vector<float> p = {0.5f, 0.3f, 0.2f};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1000; ++i) {
    const int draft = DrawFrom(p, rng);
    EXPECT_TRUE(AcceptOrResample(p, p, draft, rng).accepted);
  }
}

}  // namespace
}  // namespace glance
