// Aggregates of an AttentionMap (core/engine/attention_aggregate.h, issue 36 item 2): layer
// ranges per kind, head mean / max / one head, percentiles and display scaling, on a small
// map whose every weight is known.
#include <gtest/gtest.h>

#include "core/engine/attention_aggregate.h"

using namespace glance;

namespace {

// 1×2 grid; softmax layers 3, 7 with 2 heads; DeltaNet layers 0, 1, 2 with 2 value heads.
AttentionMap Sample() {
  AttentionMap m;
  m.grid_h = 1;
  m.grid_w = 2;
  m.layers = {3, 7};
  m.n_heads = 2;
  m.weights = {/*L3 h0*/ 0.1f, 0.9f, /*L3 h1*/ 0.5f, 0.5f, /*L7 h0*/ 0.3f, 0.7f, /*L7 h1*/ 0.9f, 0.1f};
  m.linear_layers = {0, 1, 2};
  m.linear_heads = 2;
  m.linear_weights = {/*L0*/ 1.0f, -1.0f, 3.0f, 1.0f, /*L1*/ -2.0f, 0.0f, 0.0f, 4.0f, /*L2*/ 5.0f, 5.0f, 1.0f, 1.0f};
  return m;
}

void ExpectMap(const std::vector<float>& got, std::vector<float> want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6f) << "cell " << i;
}

}  // namespace

TEST(AttentionAggregate, LayerRangesHeadFusionAndKinds) {
  const AttentionMap m = Sample();
  MapAggregate a;  // softmax, every layer, head mean: the map's own Select(-1, -1)
  ExpectMap(Aggregate(m, a), {0.45f, 0.55f});
  ExpectMap(Aggregate(m, a), m.Select(-1, -1));
  a.first_layer = a.last_layer = 7;  // one layer by its index
  ExpectMap(Aggregate(m, a), {0.6f, 0.4f});
  a.fusion = HeadFusion::kMax;
  ExpectMap(Aggregate(m, a), {0.9f, 0.7f});
  a.head = 0;
  ExpectMap(Aggregate(m, a), {0.3f, 0.7f});
  MapAggregate h;
  h.kind = MapKind::kHidden;
  h.first_layer = 1;  // layers 1..2
  ExpectMap(Aggregate(m, h), {(-1.0f + 3.0f) / 2, (2.0f + 3.0f) / 2});
  h.fusion = HeadFusion::kMax;  // signed max over heads, then the layer mean
  ExpectMap(Aggregate(m, h), {(0.0f + 5.0f) / 2, (4.0f + 5.0f) / 2});
  h.first_layer = -1;
  h.last_layer = 0;
  h.fusion = HeadFusion::kMean;
  ExpectMap(Aggregate(m, h), m.SelectLinear(0, -1));
  // Nothing selected: empty, not zeros (a range with no layer, a head past the last, no data).
  h.first_layer = 4;
  h.last_layer = 6;
  EXPECT_TRUE(Aggregate(m, h).empty());
  a.head = 2;
  EXPECT_TRUE(Aggregate(m, a).empty());
  AttentionMap no_hidden = Sample();
  no_hidden.linear_layers.clear();
  no_hidden.linear_weights.clear();
  EXPECT_TRUE(Aggregate(no_hidden, MapAggregate{MapKind::kHidden}).empty());
}

TEST(AttentionAggregate, PercentilesAndDisplayScaling) {
  const std::vector<float> v = {4.0f, 0.0f, 2.0f, 1.0f, 3.0f};
  EXPECT_FLOAT_EQ(Percentile(v, 0), 0.0f);
  EXPECT_FLOAT_EQ(Percentile(v, 100), 4.0f);
  EXPECT_FLOAT_EQ(Percentile(v, 50), 2.0f);
  EXPECT_FLOAT_EQ(Percentile(v, 90), 3.6f);  // rank 3.6: between 3 and 4
  EXPECT_FLOAT_EQ(Percentile({}, 50), 0.0f);
  ExpectMap(ScaleForDisplay(v, 1.0f, 3.0f, false), {1.0f, 0.0f, 0.5f, 0.0f, 1.0f});  // clipped
  const std::vector<float> logd = ScaleForDisplay(v, 0.0f, 4.0f, true);
  EXPECT_FLOAT_EQ(logd[1], 0.0f);
  EXPECT_FLOAT_EQ(logd[0], 1.0f);
  EXPECT_GT(logd[3], 0.25f * 3);  // a quarter of the range shows as far more than a quarter
  ExpectMap(ScaleForDisplay(v, 2.0f, 2.0f, false), {0, 0, 0, 0, 0});  // an empty range: nothing
}

// The reverse lookup's rankings (issue 36 item 4): raw weight, weight over the word's mean on
// the image, and content words only. Three words over a 1×3 grid: "the" rests everywhere, "red"
// peaks on cell 0, "left" looks at cells 0 and 1.
TEST(AttentionAggregate, ReverseLookupRankings) {
  std::vector<AttentionMap> maps(3);
  const float w[3][3] = {{0.6f, 0.6f, 0.6f}, {0.5f, 0.1f, 0.0f}, {0.55f, 0.45f, 0.0f}};
  for (int t = 0; t < 3; ++t) {
    AttentionMap& m = maps[static_cast<size_t>(t)];
    m.step = t;
    m.grid_h = 1;
    m.grid_w = 3;
    m.layers = {3};
    m.n_heads = 1;
    m.weights.assign(w[t], w[t] + 3);
    m.mean = m.weights;
  }
  const std::vector<AttentionWord> words = {{"The", 0, 0}, {"red", 1, 1}, {"left.", 2, 2}};
  const auto order = [&](LookupRanking r) {
    std::vector<int> o;
    for (const WordAtCell& x : RankWordsAtCell(maps, words, 0, MapAggregate{}, r)) o.push_back(x.word);
    return o;
  };
  EXPECT_EQ(order(LookupRanking::kRaw), (std::vector<int>{0, 2, 1}));       // "The" 0.6 first
  EXPECT_EQ(order(LookupRanking::kRelative), (std::vector<int>{1, 2, 0}));  // 0.5/0.2 = 2.5 > 0.55/0.333 > 1
  EXPECT_EQ(order(LookupRanking::kContentWords), (std::vector<int>{2, 1}));  // "The" left out
  // At cell 1 "left." (0.45) is above its mean (0.333), "red" (0.1) below its (0.2): "red"
  // looked elsewhere and is left out of the content words, kept by kRaw; at cell 2 both weigh 0,
  // under their means, so no content word looked there.
  const auto at = [&](int cell, LookupRanking r) {
    std::vector<int> o;
    for (const WordAtCell& x : RankWordsAtCell(maps, words, cell, MapAggregate{}, r)) o.push_back(x.word);
    return o;
  };
  EXPECT_EQ(at(1, LookupRanking::kContentWords), (std::vector<int>{2}));
  EXPECT_EQ(at(1, LookupRanking::kRaw), (std::vector<int>{0, 2, 1}));
  EXPECT_TRUE(at(2, LookupRanking::kContentWords).empty());
  EXPECT_EQ(at(2, LookupRanking::kRaw), (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(IsFunctionWord("The"));
  EXPECT_TRUE(IsFunctionWord("on"));
  EXPECT_FALSE(IsFunctionWord("triangle"));
  EXPECT_FALSE(IsFunctionWord("theme"));  // whole words only
}
