#include <gtest/gtest.h>

#include "core/engine/attention_capture.h"
#include "core/engine/session.h"

using namespace glance;

TEST(AttentionCapture, PicksImageColumnsAndAveragesLayersAndHeads) {
  // 2×2 grid at cache positions 4..7; 2 heads; keys 0..9.
  AttentionCapture cap(0, 2, 2, {4, 5, 6, 7});
  cap.BeginToken(0);
  float l3[2 * 10] = {}, l7[2 * 10] = {};
  for (int k = 0; k < 10; ++k) {
    l3[k] = 0.01f * k;         // head 0
    l3[10 + k] = 0.02f * k;    // head 1
    l7[k] = 0.1f;
    l7[10 + k] = (k == 5) ? 1.0f : 0.0f;
  }
  cap.AddLayerRow(3, 2, l3, 10, 10);
  cap.AddLayerRow(7, 2, l7, 10, 10);
  const AttentionMap& m = cap.EndToken(42, " cat");
  ASSERT_EQ(m.layers, (std::vector<int>{3, 7}));
  ASSERT_EQ(m.weights.size(), 2u * 2u * 4u);
  EXPECT_FLOAT_EQ(m.weights[0], 0.04f);          // layer 3, head 0, cell 0 = key 4
  EXPECT_FLOAT_EQ(m.weights[4 + 1], 0.10f);      // layer 3, head 1, cell 1 = key 5
  EXPECT_FLOAT_EQ(m.weights[12 + 1], 1.0f);      // layer 7, head 1, cell 1
  // mean over the 4 (layer, head) rows for cell 1 (key 5): (0.05 + 0.10 + 0.1 + 1.0) / 4
  EXPECT_NEAR(m.mean[1], (0.05f + 0.10f + 0.1f + 1.0f) / 4.0f, 1e-6);
  EXPECT_EQ(m.Select(-1, -1), m.mean);
  const auto l7h1 = m.Select(1, 1);
  EXPECT_FLOAT_EQ(l7h1[1], 1.0f);
  EXPECT_FLOAT_EQ(l7h1[0], 0.0f);
  const auto h0 = m.Select(-1, 0);  // mean over layers of head 0, cell 0: (0.04 + 0.1) / 2
  EXPECT_NEAR(h0[0], 0.07f, 1e-6);
}

TEST(AttentionCapture, DeltaNetHiddenAttentionPicksTheImageRowsAndKeepsTheSoftmaxLayout) {
  // 2×2 grid at cache positions 4..7; tracked rows 4..7 and 9 (a later image); 2 value heads.
  AttentionCapture cap(0, 2, 2, {4, 5, 6, 7});
  cap.BeginToken(0);
  const int64_t pos[] = {4, 5, 6, 7, 9};
  const float w0[] = {0.5f, -0.25f, 0.0f, 1.0f, 7.0f, /* head 1 */ -1.0f, 2.0f, 3.0f, 4.0f, 8.0f};
  cap.AddHiddenRow(0, 2, pos, 5, w0, 5);
  const int64_t partial[] = {5, 6, 7, 9};  // row 4 untracked (prefilled before capture): left out
  cap.AddHiddenRow(1, 2, partial, 4, w0, 5);
  float probs[10] = {};
  probs[5] = 1.0f;
  cap.AddLayerRow(3, 1, probs, 10, 10);
  const AttentionMap& m = cap.EndToken(7, " box");
  EXPECT_EQ(m.linear_layers, (std::vector<int>{0}));
  EXPECT_EQ(m.linear_heads, 2);
  EXPECT_EQ(m.linear_weights, (std::vector<float>{0.5f, -0.25f, 0.0f, 1.0f, -1.0f, 2.0f, 3.0f, 4.0f}));
  EXPECT_EQ(m.SelectLinear(0, -1), (std::vector<float>{-0.25f, 0.875f, 1.5f, 2.5f}));
  // The softmax data and its mean are the full-attention layers' alone, as before.
  EXPECT_EQ(m.layers, (std::vector<int>{3}));
  EXPECT_EQ(m.mean, (std::vector<float>{0.0f, 1.0f, 0.0f, 0.0f}));
}

TEST(AttentionCapture, GroupWordsJoinsSubwordTokens) {
  std::vector<AttentionMap> maps;
  const char* pieces[] = {"A", " gin", "ger", " cat", ".", "\n", "It", "'s", " 3", "D"};
  for (int i = 0; i < 10; ++i) {
    AttentionMap m;
    m.step = i;
    m.token_text = pieces[i];
    maps.push_back(m);
  }
  const auto words = GroupWords(maps);
  std::vector<std::string> texts;
  for (const auto& w : words) texts.push_back(w.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"A", "ginger", "cat", ".", "It's", "3D"}));
  EXPECT_EQ(words[1].first_step, 1);
  EXPECT_EQ(words[1].last_step, 2);
}

// The layer × head shares (issue 36 item 5): image keys, key 0 (the sink) and the rest of the
// softmax row; for the DeltaNet layers fractions of the signed total, known only with row 0
// tracked and a total given.
TEST(AttentionCapture, LayerHeadSharesSplitTheRowIntoImageTextAndSink) {
  AttentionCapture cap(0, 2, 2, {4, 5, 6, 7});
  cap.BeginToken(0);
  float probs[10] = {0.3f, 0.1f, 0.0f, 0.0f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f};
  cap.AddLayerRow(3, 1, probs, 10, 10);
  const int64_t pos[] = {0, 4, 5, 6, 7};
  const float w[] = {0.5f, 1.0f, 1.0f, -0.5f, 0.5f};
  const float total = 4.0f;  // image 2, sink 0.5, text 1.5
  cap.AddHiddenRow(0, 1, pos, 5, w, 5, &total, 1);
  const AttentionMap& m = cap.EndToken(1, " a");
  ASSERT_EQ(m.shares.size(), 3u);
  EXPECT_NEAR(m.shares[0], 0.4f, 1e-6f);  // image
  EXPECT_NEAR(m.shares[1], 0.3f, 1e-6f);  // text: keys 1, 8, 9
  EXPECT_NEAR(m.shares[2], 0.3f, 1e-6f);  // sink
  ASSERT_EQ(m.linear_shares.size(), 3u);
  EXPECT_NEAR(m.linear_shares[0], 0.5f, 1e-6f);
  EXPECT_NEAR(m.linear_shares[1], 0.375f, 1e-6f);
  EXPECT_NEAR(m.linear_shares[2], 0.125f, 1e-6f);

  // Without a total, or without row 0 among the tracked rows: no DeltaNet shares.
  cap.BeginToken(1);
  cap.AddHiddenRow(0, 1, pos, 5, w, 5, nullptr, 0);
  EXPECT_TRUE(cap.EndToken(2, " b").linear_shares.empty());
  cap.BeginToken(2);
  cap.AddHiddenRow(0, 1, pos + 1, 4, w + 1, 4, &total, 1);
  const AttentionMap& late = cap.EndToken(3, " c");
  EXPECT_TRUE(late.linear_shares.empty());
  EXPECT_EQ(late.linear_layers, (std::vector<int>{0}));  // the map itself is kept
}
