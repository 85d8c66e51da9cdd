// The speculative-sampling rule (core/engine/speculative_sampling.h) on a small vocabulary:
// drafts from q, the rule applied, and the tokens' frequencies tested against p with a
// chi-squared test; accepting every draft (the negative control) gives q instead.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

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
