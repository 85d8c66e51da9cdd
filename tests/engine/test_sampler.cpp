#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "core/engine/sampler.h"
#include "core/util/error.h"

using namespace glance;

namespace {
std::vector<float> Logits() { return {0.1f, 2.0f, 1.0f, 3.0f, -1.0f, 2.9f}; }
}  // namespace

TEST(Sampler, GreedyPicksFirstMaximum) {
  SamplingParams p;
  Sampler s(p, 6);
  auto l = Logits();
  EXPECT_EQ(s.Sample(l, {}, {}), 3);
  std::vector<float> tie = {1.0f, 5.0f, 5.0f};
  Sampler s2(p, 3);
  EXPECT_EQ(s2.Sample(tie, {}, {}), 1);
}

TEST(Sampler, NeverProducesIdsPastTheTokenizer) {
  SamplingParams p;
  Sampler greedy(p, 4);  // ids 4 and 5 are embedding padding
  auto l = Logits();
  l[5] = 100.0f;
  EXPECT_EQ(greedy.Sample(l, {}, {}), 3);
  p.greedy = false;
  p.temperature = 5.0f;
  Sampler random(p, 4);
  for (int i = 0; i < 500; ++i) {
    auto l2 = Logits();
    l2[4] = l2[5] = 100.0f;
    EXPECT_LT(random.Sample(l2, {}, {}), 4);
  }
}

TEST(Sampler, SeededSamplingIsReproducibleAndSeedsDiffer) {
  SamplingParams p;
  p.greedy = false;
  p.temperature = 2.0f;
  auto run = [&](uint64_t seed) {
    Sampler s(p, 6, seed);
    std::vector<int32_t> out;
    for (int i = 0; i < 64; ++i) {
      auto l = Logits();
      out.push_back(s.Sample(l, {}, {}));
    }
    return out;
  };
  EXPECT_EQ(run(42), run(42));
  EXPECT_NE(run(42), run(43));
}

TEST(Sampler, TopKOneIsGreedyAndTopPKeepsTheHead) {
  SamplingParams p;
  p.greedy = false;
  p.top_k = 1;
  Sampler s(p, 6);
  for (int i = 0; i < 50; ++i) {
    auto l = Logits();
    EXPECT_EQ(s.Sample(l, {}, {}), 3);
  }
  p.top_k = 0;
  p.top_p = 0.5f;  // ids 3 (3.0) and 5 (2.9) hold ~0.33 each: the top-p set is {3, 5}
  Sampler s2(p, 6);
  std::map<int32_t, int> seen;
  for (int i = 0; i < 400; ++i) {
    auto l = Logits();
    seen[s2.Sample(l, {}, {})]++;
  }
  for (auto& [id, n] : seen) EXPECT_TRUE(id == 3 || id == 5) << id;
  EXPECT_GT(seen[3], 0);
  EXPECT_GT(seen[5], 0);
}

TEST(Sampler, MinPDropsUnlikelyTokens) {
  SamplingParams p;
  p.greedy = false;
  p.min_p = 0.5f;  // keep tokens with prob >= 0.5 * p(top)
  Sampler s(p, 6);
  for (int i = 0; i < 300; ++i) {
    auto l = Logits();
    const int32_t id = s.Sample(l, {}, {});
    EXPECT_TRUE(id == 3 || id == 5 || id == 1) << id;  // exp(-1) = 0.37 < 0.5 drops id 2
  }
}

TEST(Sampler, PenaltiesChangeTheGreedyChoice) {
  SamplingParams p;
  p.repetition_penalty = 2.0f;
  Sampler s(p, 6);
  auto l = Logits();
  std::vector<int32_t> ctx = {3};
  EXPECT_EQ(s.Sample(l, ctx, {}), 5);  // 3.0/2 = 1.5 < 2.9
  SamplingParams q;
  q.presence_penalty = 1.5f;
  Sampler s2(q, 6);
  auto l2 = Logits();
  std::vector<int32_t> gen = {3, 3, 5};
  EXPECT_EQ(s2.Sample(l2, {}, gen), 1);  // 3 -> 1.5, 2.9 -> 1.4, 2.0 stays
}

TEST(Sampler, BadParametersAreRejected) {
  SamplingParams p;
  p.greedy = false;
  p.temperature = 0.0f;
  EXPECT_THROW(Sampler(p, 6), Error);
  SamplingParams q;
  q.top_p = 1.5f;
  EXPECT_THROW(q.Validate(), Error);
}
