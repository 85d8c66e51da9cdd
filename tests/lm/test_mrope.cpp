// M-RoPE position ids and rotary tables against HF get_rope_index (tiny-a golden).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/lm/mrope.h"
#include "core/util/error.h"
#include "golden.h"

namespace glance::lm {
namespace {

using testing::Golden;
using testing::GetGolden;
using testing::TinyConfig;

// The golden image: 14x14 patches → 7x7 merged tokens.
std::vector<ImageGrid> GoldenGrids() {
  const auto thw = GetGolden().I64("image_grid_thw");
  const int64_t merge = TinyConfig().vision.spatial_merge_size;
  return {ImageGrid{thw[1] / merge, thw[2] / merge}};
}

TEST(Mrope, PromptPositionsMatchHf) {
  const Golden& g = GetGolden();
  const auto ids = g.I64("prompt.input_ids");
  const auto want = g.I64("prompt.position_ids");
  const auto delta = g.I64("prompt.rope_deltas");
  const auto grids = GoldenGrids();
  const MropePositions p = ComputeMropePositions(ids, TinyConfig().image_token_id, grids);
  ASSERT_EQ(p.n_tokens, static_cast<int64_t>(ids.size()));
  EXPECT_EQ(p.pos, want);
  EXPECT_EQ(p.rope_delta, delta[0]);
  EXPECT_EQ(p.rope_delta, -42);  // README: 49 tokens advance 7 positions
}

TEST(Mrope, Turn2FromScratchAndContinuationPositions) {
  const Golden& g = GetGolden();
  const auto ids = g.I64("turn2.input_ids");
  const auto want = g.I64("turn2.position_ids");
  const auto grids = GoldenGrids();
  const MropePositions p = ComputeMropePositions(ids, TinyConfig().image_token_id, grids);
  EXPECT_EQ(p.pos, want);
  // The cached continuation: 94 tokens in the cache, 23 new text tokens at cache_len + delta.
  const int64_t n = static_cast<int64_t>(ids.size());
  const auto cont = TextPositions(94, p.rope_delta, n - 94);
  for (int a = 0; a < 3; ++a)
    for (int64_t i = 0; i < n - 94; ++i)
      EXPECT_EQ(cont[static_cast<size_t>(a * (n - 94) + i)], want[static_cast<size_t>(a * n + 94 + i)]);
}

TEST(Mrope, WrongGridIsDetectedNegativeControl) {
  const Golden& g = GetGolden();
  const auto ids = g.I64("prompt.input_ids");
  const auto want = g.I64("prompt.position_ids");
  const std::vector<ImageGrid> flat = {ImageGrid{1, 49}};  // same count, other shape
  const MropePositions p = ComputeMropePositions(ids, TinyConfig().image_token_id, flat);
  EXPECT_NE(p.pos, want);
  EXPECT_NE(p.rope_delta, -42);
}

TEST(Mrope, MultipleImagesAndMismatches) {
  // text(2) img 2x3 text(1) img 4x1 text(2)
  const int64_t I = 9;
  std::vector<int64_t> ids = {1, 2, I, I, I, I, I, I, 3, I, I, I, I, 4, 5};
  const std::vector<ImageGrid> grids = {{2, 3}, {4, 1}};
  const MropePositions p = ComputeMropePositions(ids, I, grids);
  const std::vector<int64_t> t = {0, 1, 2, 2, 2, 2, 2, 2, 5, 6, 6, 6, 6, 10, 11};
  const std::vector<int64_t> h = {0, 1, 2, 2, 2, 3, 3, 3, 5, 6, 7, 8, 9, 10, 11};
  const std::vector<int64_t> w = {0, 1, 2, 3, 4, 2, 3, 4, 5, 6, 6, 6, 6, 10, 11};
  EXPECT_EQ(std::vector<int64_t>(p.t(), p.t() + 15), t);
  EXPECT_EQ(std::vector<int64_t>(p.h(), p.h() + 15), h);
  EXPECT_EQ(std::vector<int64_t>(p.w(), p.w() + 15), w);
  EXPECT_EQ(p.rope_delta, 12 - 15);

  const std::vector<ImageGrid> one = {{2, 3}};
  EXPECT_THROW(ComputeMropePositions(ids, I, one), Error);           // too few grids
  const std::vector<ImageGrid> three = {{2, 3}, {4, 1}, {1, 1}};
  EXPECT_THROW(ComputeMropePositions(ids, I, three), Error);         // too many grids
  const std::vector<ImageGrid> big = {{3, 3}, {4, 1}};
  EXPECT_THROW(ComputeMropePositions(ids, I, big), Error);           // run too short
}

TEST(Mrope, InterleavedAxisAssignment) {
  // tiny-a: rotary 8, section [2,1,1]: j = 0 T, 1 H, 2 W, 3 T.
  const RopeTable tiny(TinyConfig().text);
  ASSERT_EQ(tiny.rotary_dim(), 8);
  EXPECT_EQ(tiny.axis_of(0), 0);
  EXPECT_EQ(tiny.axis_of(1), 1);
  EXPECT_EQ(tiny.axis_of(2), 2);
  EXPECT_EQ(tiny.axis_of(3), 0);
  // Released checkpoints: rotary 64, section [11,11,10] → 11 T, 11 H, 10 W (qwen35.md §2.6).
  TextConfig real;
  real.head_dim = 256;
  real.partial_rotary_factor = 0.25;
  real.mrope_section = {11, 11, 10};
  const RopeTable r(real);
  int count[3] = {0, 0, 0};
  for (int j = 0; j < 32; ++j) ++count[r.axis_of(j)];
  EXPECT_EQ(count[0], 11);
  EXPECT_EQ(count[1], 11);
  EXPECT_EQ(count[2], 10);
  EXPECT_EQ(r.axis_of(31), 1);
  EXPECT_EQ(r.axis_of(30), 0);
  EXPECT_NEAR(r.inv_freq(1), std::pow(1e7, -2.0 / 64.0), 1e-7);
}

TEST(Mrope, CosSinAndRotation) {
  const RopeTable tiny(TinyConfig().text);
  // positions t=5, h=7, w=9 for one token
  const int64_t pos[3] = {5, 7, 9};
  std::vector<float> c(8), s(8);
  tiny.Compute(pos, 1, 1, c.data(), s.data());
  const int64_t p_of[4] = {5, 7, 9, 5};
  for (int j = 0; j < 4; ++j) {
    const double ang = static_cast<double>(tiny.inv_freq(j)) * static_cast<double>(p_of[j]);
    EXPECT_NEAR(c[j], std::cos(ang), 1e-6);
    EXPECT_NEAR(c[j + 4], std::cos(ang), 1e-6);
    EXPECT_NEAR(s[j], std::sin(ang), 1e-6);
  }
  // rotate-half: x = e_0 → x' = cos·e_0 + sin·e_4; dims past rotary_dim untouched.
  std::vector<float> x(12, 0.0f);
  x[0] = 1.0f;
  x[10] = 3.0f;
  ApplyRope(x.data(), c.data(), s.data(), 8);
  EXPECT_FLOAT_EQ(x[0], c[0]);
  EXPECT_FLOAT_EQ(x[4], s[4]);
  EXPECT_FLOAT_EQ(x[10], 3.0f);
}

}  // namespace
}  // namespace glance::lm
