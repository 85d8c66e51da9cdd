// smart_resize against HF's own results (golden.json smart_resize_real_qwen3_5_limits) and the
// edge cases the spec names (qwen35.md §4 step 2, §8.11).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/vision/smart_resize.h"
#include "tests/vision/vision_test_util.h"

namespace glance::vision {
namespace {

nlohmann::json GoldenJson() {
  std::ifstream in(test::TinyFile("golden.json"));
  return nlohmann::json::parse(in);
}

TEST(SmartResize, MatchesHfTableUnderReleasedLimits) {
  const auto table = GoldenJson().at("smart_resize_real_qwen3_5_limits");
  ASSERT_GE(table.size(), 10u);
  for (const auto& row : table) {
    const int64_t h = row.at("h"), w = row.at("w");
    const ResizeTarget t = SmartResize(h, w, 32, 65536, 16777216);
    EXPECT_EQ(t.height, row.at("resized_hw")[0].get<int>()) << h << "x" << w;
    EXPECT_EQ(t.width, row.at("resized_hw")[1].get<int>()) << h << "x" << w;
  }
}

TEST(SmartResize, RealProcessorCaseAndTinyConfig) {
  const auto g = GoldenJson();
  const auto& extra = g.at("extra_real_processor_case");
  const ResizeTarget t = SmartResize(300, 451, 32, 65536, 16777216);
  EXPECT_EQ(t.height, extra.at("resized_hw")[0].get<int>());
  EXPECT_EQ(t.width, extra.at("resized_hw")[1].get<int>());
  // tiny-a's own processor (shortest_edge 3136) leaves 224x224 alone.
  const ResizeTarget tiny = SmartResize(224, 224, 32, 3136, 16777216);
  EXPECT_EQ(tiny.height, g.at("processor").at("smart_resize_hw")[0].get<int>());
  EXPECT_EQ(tiny.width, g.at("processor").at("smart_resize_hw")[1].get<int>());
}

TEST(SmartResize, SpecExamples) {
  // qwen35.md §4: 448x448 stays, 640x480 stays, 300x200 -> 320x224, 224 -> 256.
  EXPECT_EQ(SmartResize(448, 448, 32, 65536, 16777216).height, 448);
  const ResizeTarget a = SmartResize(480, 640, 32, 65536, 16777216);
  EXPECT_EQ(a.height, 480);
  EXPECT_EQ(a.width, 640);
  const ResizeTarget b = SmartResize(200, 300, 32, 65536, 16777216);
  EXPECT_EQ(b.height, 224);
  EXPECT_EQ(b.width, 320);
  // Banker's rounding: 48/32 = 1.5 -> 2 (even), 80/32 = 2.5 -> 2 (even), with min_pixels 0.
  const ResizeTarget c = SmartResize(48, 80, 32, 0, 16777216);
  EXPECT_EQ(c.height, 64);
  EXPECT_EQ(c.width, 64);
  // Max branch: 4000x6000 floors to fit 16.7 MP.
  const ResizeTarget d = SmartResize(4000, 6000, 32, 65536, 16777216);
  EXPECT_LE(int64_t{d.height} * d.width, 16777216);
}

TEST(SmartResize, TinyAndExtremeImages) {
  const ResizeTarget one = SmartResize(1, 1, 32, 65536, 16777216);  // upscaled, not refused
  EXPECT_EQ(one.height, 256);
  EXPECT_EQ(one.width, 256);
  const ResizeTarget zero_min = SmartResize(5, 5, 32, 0, 16777216);  // never a 0-sized grid
  EXPECT_EQ(zero_min.height, 32);
  test::ExpectErrorContaining([] { SmartResize(1, 300, 32, 65536, 16777216); }, {"200"});
  test::ExpectErrorContaining([] { SmartResize(0, 10, 32, 65536, 16777216); }, {"empty"});
}

}  // namespace
}  // namespace glance::vision
