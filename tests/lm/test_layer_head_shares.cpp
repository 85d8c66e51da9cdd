// The layer × head shares (issue 36 item 5; AttentionMap::shares / linear_shares, filled by
// core/engine/attention_capture.cpp) on the tiny golden model's prompt:
//  - full-attention layers: each head's image / text / sink shares add up to 1 and equal the
//    brute-force partition of Hugging Face's own softmax row (golden prefill.attn_last_pos);
//  - DeltaNet layers: the shares from the image rows, row 0 and the folded total (z, qwen35.md
//    §2.9) equal the partition of the explicit a_{t,j} over every row (every_row tracking);
//  - negative control: image positions off by one, or the sink counted as text, are caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "core/engine/attention_aggregate.h"
#include "core/engine/attention_capture.h"
#include "core/lm/mrope.h"
#include "lm_fixture.h"

namespace glance::lm {
namespace {

using testing::GetGolden;
using testing::GetTinyModel;

// Feeds the last query row of every layer to one AttentionCapture, as the session's observer does.
class CaptureAdapter : public AttentionObserver {
 public:
  explicit CaptureAdapter(AttentionCapture& c) : c_(c) {}
  void OnAttention(const AttentionProbs& p) override {
    c_.AddLayerRow(p.layer, p.n_heads, p.row(0, p.n_queries - 1), p.n_queries * p.n_keys, p.n_keys);
  }
  bool wants_hidden_attention() const override { return true; }
  void OnHiddenAttention(const HiddenAttentionWeights& w) override {
    c_.AddHiddenRow(w.layer, w.n_heads, w.positions, w.n_keys, w.row(0, w.n_queries - 1), w.n_queries * w.n_keys,
                    w.total(0, w.n_queries - 1), w.n_queries);
  }

 private:
  AttentionCapture& c_;
};

// Every DeltaNet layer's last row over every tracked row (every_row: all of them).
class HiddenRows : public AttentionObserver {
 public:
  void OnAttention(const AttentionProbs&) override {}
  bool wants_hidden_attention() const override { return true; }
  void OnHiddenAttention(const HiddenAttentionWeights& w) override {
    auto& dst = rows[w.layer];
    dst.clear();
    for (int h = 0; h < w.n_heads; ++h) dst.insert(dst.end(), w.row(h, w.n_queries - 1), w.row(h, w.n_queries - 1) + w.n_keys);
    n_keys = w.n_keys;
  }
  std::map<int, std::vector<float>> rows;  // [heads][n_keys]
  int64_t n_keys = 0;
};

struct Prompt {
  std::vector<int64_t> ids;
  std::vector<float> embeds;
  MropePositions pos;
  std::vector<EmbeddingOverride> overrides;  // the image rows, so that they are tracked
  std::vector<int64_t> image_positions;
};

Prompt GoldenPrompt() {
  const testing::TinyModel& m = GetTinyModel();
  const testing::Golden& g = GetGolden();
  Prompt p;
  p.ids = g.I64("prompt.input_ids");
  p.embeds = g.F32("prefill.inputs_embeds");
  const auto thw = g.I64("image_grid_thw");
  const int64_t merge = m.cfg.vision.spatial_merge_size;
  const std::vector<ImageGrid> grids = {ImageGrid{thw[1] / merge, thw[2] / merge}};
  p.pos = ComputeMropePositions(p.ids, m.cfg.image_token_id, grids);
  const int64_t H = m.cfg.text.hidden_size;
  for (size_t t = 0; t < p.ids.size(); ++t)
    if (p.ids[t] == m.cfg.image_token_id) {
      p.image_positions.push_back(static_cast<int64_t>(t));
      p.overrides.push_back({static_cast<int64_t>(t), p.embeds.data() + static_cast<int64_t>(t) * H});
    }
  return p;
}

void Prefill(const Prompt& p, bool every_row, AttentionObserver& obs) {
  const testing::TinyModel& m = GetTinyModel();
  LmState state = m.model.NewState();
  m.model.EnableHiddenAttention(state, every_row);
  ForwardInput in;
  in.ids = p.ids;
  in.embeddings = p.embeds.data();
  in.overrides = p.overrides;
  in.positions = p.pos.pos.data();
  ForwardOutput out;
  m.model.Forward(in, state, out, nullptr, &obs);
}

struct Partition {
  double image = 0, text = 0, sink = 0;
};

// The brute force: one row split by position (image positions, position 0, the rest).
Partition Split(const float* row, int64_t n_keys, const std::vector<int64_t>& image, bool sink_as_text = false) {
  Partition s;
  for (int64_t k = 0; k < n_keys; ++k) {
    const bool is_image = std::find(image.begin(), image.end(), k) != image.end();
    const double x = row[k];
    if (is_image) s.image += x;
    else if (k == 0 && !sink_as_text) s.sink += x;
    else s.text += x;
  }
  return s;
}

double Worst(const Partition& a, const float* got) {
  return std::max({std::abs(a.image - double{got[0]}), std::abs(a.text - double{got[1]}), std::abs(a.sink - double{got[2]})});
}

TEST(LayerHeadShares, FullAttentionSharesSumToOneAndMatchTheGoldenRowsPartition) {
  const Prompt p = GoldenPrompt();
  ASSERT_FALSE(p.image_positions.empty());
  const int64_t cells = static_cast<int64_t>(p.image_positions.size());
  AttentionCapture capture(0, 1, static_cast<int>(cells), p.image_positions);
  capture.BeginToken(0);
  CaptureAdapter adapter(capture);
  Prefill(p, false, adapter);
  const AttentionMap m = capture.EndToken(1, "x");
  ASSERT_EQ(m.layers, (std::vector<int>{3, 7}));
  ASSERT_EQ(m.shares.size(), 3 * m.layers.size() * static_cast<size_t>(m.n_heads));
  const int64_t n_keys = static_cast<int64_t>(p.ids.size());
  double worst = 0.0, worst_sum = 0.0, control_shift = 0.0, control_sink = 0.0;
  std::vector<int64_t> shifted = p.image_positions;
  for (int64_t& x : shifted) ++x;
  for (size_t slot = 0; slot < m.layers.size(); ++slot) {
    const std::vector<float> hf = GetGolden().F32("prefill.attn_last_pos.layer" + std::to_string(m.layers[slot]));
    ASSERT_EQ(hf.size(), static_cast<size_t>(m.n_heads * n_keys));
    for (int h = 0; h < m.n_heads; ++h) {
      const float* got = m.shares.data() + 3 * (slot * static_cast<size_t>(m.n_heads) + static_cast<size_t>(h));
      const float* row = hf.data() + h * n_keys;
      worst = std::max(worst, Worst(Split(row, n_keys, p.image_positions), got));
      worst_sum = std::max(worst_sum, std::abs(double{got[0]} + double{got[1]} + double{got[2]} - 1.0));
      control_shift = std::max(control_shift, Worst(Split(row, n_keys, shifted), got));
      control_sink = std::max(control_sink, Worst(Split(row, n_keys, p.image_positions, true), got));
    }
  }
  EXPECT_LE(worst, 1e-4) << "shares = the partition of HF's softmax row";
  EXPECT_LE(worst_sum, 1e-5) << "image + text + sink = 1";
  EXPECT_GT(control_shift, 1e-3) << "control: image positions off by one are caught";
  EXPECT_GT(control_sink, 1e-3) << "control: the sink counted as text is caught";
  std::printf("[measured] full-attention shares vs HF rows: max |diff| %.3g, max |sum - 1| %.3g; controls %.3g, %.3g\n",
              worst, worst_sum, control_shift, control_sink);

  const std::vector<HeadShare> cellsOut = LayerHeadShares({m}, 0, 0);
  ASSERT_FALSE(cellsOut.empty());
  EXPECT_EQ(cellsOut.front().kind, MapKind::kSoftmax);
  EXPECT_EQ(cellsOut.front().layer, 3);
  EXPECT_FLOAT_EQ(cellsOut.front().image, m.shares[0]);
}

TEST(LayerHeadShares, DeltaNetSharesEqualThePartitionOfTheExplicitRow) {
  const Prompt p = GoldenPrompt();
  const int64_t cells = static_cast<int64_t>(p.image_positions.size());
  AttentionCapture capture(0, 1, static_cast<int>(cells), p.image_positions);
  capture.BeginToken(0);
  CaptureAdapter adapter(capture);
  Prefill(p, /*every_row=*/false, adapter);  // image rows and row 0 tracked; the rest through z
  const AttentionMap m = capture.EndToken(1, "x");
  ASSERT_FALSE(m.linear_layers.empty());
  ASSERT_EQ(m.linear_shares.size(), 3 * m.linear_layers.size() * static_cast<size_t>(m.linear_heads));

  HiddenRows all;
  Prefill(p, /*every_row=*/true, all);
  ASSERT_EQ(all.n_keys, static_cast<int64_t>(p.ids.size()));
  double worst = 0.0, control = 0.0;
  std::vector<int64_t> shifted = p.image_positions;
  for (int64_t& x : shifted) ++x;
  for (size_t slot = 0; slot < m.linear_layers.size(); ++slot)
    for (int h = 0; h < m.linear_heads; ++h) {
      const float* row = all.rows.at(m.linear_layers[slot]).data() + h * all.n_keys;
      Partition s = Split(row, all.n_keys, p.image_positions);
      const double total = s.image + s.text + s.sink;
      ASSERT_GT(std::abs(total), 1e-3) << "a near-zero total would make the fractions meaningless";
      s = {s.image / total, s.text / total, s.sink / total};
      const float* got = m.linear_shares.data() + 3 * (slot * static_cast<size_t>(m.linear_heads) + static_cast<size_t>(h));
      // Relative to the total, whose own f32 error is ~1e-6 of the row's magnitude.
      worst = std::max(worst, Worst(s, got));
      Partition c = Split(row, all.n_keys, shifted);
      c = {c.image / total, c.text / total, c.sink / total};
      control = std::max(control, Worst(c, got));
    }
  EXPECT_LE(worst, 1e-4) << "shares from z = the partition of the explicit row";
  EXPECT_GT(control, 1e-3) << "control: image positions off by one are caught";
  std::printf("[measured] DeltaNet shares vs the explicit rows: max |diff| %.3g; control %.3g\n", worst, control);
}

}  // namespace
}  // namespace glance::lm
