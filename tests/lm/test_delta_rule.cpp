// The two forms of the gated delta rule (HF torch_chunk_gated_delta_rule vs
// torch_recurrent_gated_delta_rule) agree on random inputs, with an incoming state,
// across chunk boundaries and with key and value head dims that differ.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/lm/delta_rule.h"
#include "core/lm/norms.h"
#include "golden.h"

namespace glance::lm {
namespace {

constexpr float kChunkVsRecurrentTol = 2e-5f;

struct Case {
  int64_t T;
  int dk, dv;
  std::vector<float> q, k, v, g, beta, S0;
};

Case MakeCase(int64_t T, int dk, int dv, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> n01(0.0f, 1.0f);
  std::uniform_real_distribution<float> u01(0.0f, 1.0f);
  const size_t nqk = static_cast<size_t>(T) * static_cast<size_t>(dk);
  const size_t nv = static_cast<size_t>(T) * static_cast<size_t>(dv);
  Case c{T, dk, dv, std::vector<float>(nqk), std::vector<float>(nqk), std::vector<float>(nv),
         {}, {}, std::vector<float>(static_cast<size_t>(dk) * static_cast<size_t>(dv))};
  for (auto& x : c.q) x = n01(rng);
  for (auto& x : c.k) x = n01(rng);
  for (auto& x : c.v) x = n01(rng);
  for (int64_t t = 0; t < T; ++t) {  // prepared like the layer does
    L2NormRow(c.q.data() + t * dk, dk, 1e-6f);
    for (int i = 0; i < dk; ++i) c.q[static_cast<size_t>(t * dk + i)] /= std::sqrt(static_cast<float>(dk));
    L2NormRow(c.k.data() + t * dk, dk, 1e-6f);
    c.g.push_back(-0.3f * u01(rng));
    c.beta.push_back(u01(rng));
  }
  for (auto& x : c.S0) x = 0.5f * n01(rng);
  return c;
}

DeltaRuleInput Input(const Case& c) {
  DeltaRuleInput in;
  in.q = c.q.data();
  in.k = c.k.data();
  in.qk_stride = c.dk;
  in.v = c.v.data();
  in.v_stride = c.dv;
  in.g = c.g.data();
  in.beta = c.beta.data();
  in.n_tokens = c.T;
  in.dk = c.dk;
  in.dv = c.dv;
  return in;
}

TEST(DeltaRule, ChunkedEqualsRecurrentWithInitialState) {
  for (int64_t T : {1, 5, 64, 65, 150}) {
    const Case c = MakeCase(T, 16, 8, 42u + static_cast<uint32_t>(T));
    std::vector<float> S_rec = c.S0, S_chk = c.S0, S_small = c.S0;
    std::vector<float> o_rec(static_cast<size_t>(T * c.dv)), o_chk(o_rec.size()), o_small(o_rec.size());
    DeltaRuleRecurrent(Input(c), S_rec.data(), o_rec.data(), c.dv);
    DeltaRuleChunked(Input(c), S_chk.data(), o_chk.data(), c.dv);
    DeltaRuleChunked(Input(c), S_small.data(), o_small.data(), c.dv, 7);
    EXPECT_LE(testing::MaxAbsDiff(o_rec, o_chk), kChunkVsRecurrentTol) << "T=" << T;
    EXPECT_LE(testing::MaxAbsDiff(S_rec, S_chk), kChunkVsRecurrentTol) << "T=" << T;
    EXPECT_LE(testing::MaxAbsDiff(o_rec, o_small), kChunkVsRecurrentTol) << "T=" << T;
    EXPECT_LE(testing::MaxAbsDiff(S_rec, S_small), kChunkVsRecurrentTol) << "T=" << T;
  }
}

TEST(DeltaRule, SplitSequenceEqualsWhole) {
  // Continuation: 100 tokens then 50 more on the carried state == 150 at once.
  const Case c = MakeCase(150, 16, 16, 7u);
  std::vector<float> S_whole = c.S0, S_split = c.S0;
  std::vector<float> o_whole(static_cast<size_t>(150 * c.dv)), o_split(o_whole.size());
  DeltaRuleChunked(Input(c), S_whole.data(), o_whole.data(), c.dv);
  DeltaRuleInput a = Input(c);
  a.n_tokens = 100;
  DeltaRuleChunked(a, S_split.data(), o_split.data(), c.dv);
  DeltaRuleInput b = Input(c);
  b.q += 100 * c.dk;
  b.k += 100 * c.dk;
  b.v += 100 * c.dv;
  b.g += 100;
  b.beta += 100;
  b.n_tokens = 50;
  DeltaRuleChunked(b, S_split.data(), o_split.data() + 100 * c.dv, c.dv);
  EXPECT_LE(testing::MaxAbsDiff(o_whole, o_split), kChunkVsRecurrentTol);
  EXPECT_LE(testing::MaxAbsDiff(S_whole, S_split), kChunkVsRecurrentTol);
}

TEST(DeltaRule, NegativeControlDroppingDecayIsVisible) {
  Case c = MakeCase(80, 16, 8, 3u);
  std::vector<float> S1 = c.S0, S2 = c.S0;
  std::vector<float> o1(static_cast<size_t>(80 * c.dv)), o2(o1.size());
  DeltaRuleRecurrent(Input(c), S1.data(), o1.data(), c.dv);
  for (auto& g : c.g) g = 0.0f;
  DeltaRuleChunked(Input(c), S2.data(), o2.data(), c.dv);
  EXPECT_GT(testing::MaxAbsDiff(o1, o2), 100 * kChunkVsRecurrentTol);
}

}  // namespace
}  // namespace glance::lm
