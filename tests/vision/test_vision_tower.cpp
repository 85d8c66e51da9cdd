// VisionTower against HF's float32 run of tiny-a: every intermediate and the image embeddings,
// with negative controls (no rotary, no position table) showing the gate can fail.
#include <gtest/gtest.h>

#include <atomic>

#include "core/model/config.h"
#include "core/vision/image_preprocessor.h"
#include "core/vision/vision_tower.h"
#include "kernels/cpu/thread_pool.h"
#include "tests/vision/vision_test_util.h"

namespace glance::vision {
namespace {

constexpr double kEmbedsMaxAbs = 1e-4;
constexpr double kEmbedsMinCosine = 0.99999;
constexpr double kIntermediateMaxAbs = 1e-5;

struct Tiny {
  TensorStore store = TensorStore::OpenFolder(test::TinyDir());
  ModelConfig config = ModelConfig::FromFile(test::TinyFile("config.json"));
  std::unique_ptr<VisionTower> tower = VisionTower::Load(store, config.vision);
};

Tiny& GetTiny() {
  static Tiny t;
  return t;
}

PreprocessedImage GoldenInput() {
  PreprocessedImage p;
  p.pixel_values = test::GoldenF32("pixel_values");
  const auto grid = test::GoldenI64("image_grid_thw");
  p.patch_dim = 1536;
  p.merge_size = 2;
  p.grid_t = int(grid[0]);
  p.grid_h = int(grid[1]);
  p.grid_w = int(grid[2]);
  p.resized_h = p.source_h = p.grid_h * 16;
  p.resized_w = p.source_w = p.grid_w * 16;
  return p;
}

TEST(VisionTower, IntermediatesMatchHf) {
  VisionTrace trace;
  const std::vector<float> out = GetTiny().tower->Forward(GoldenInput(), nullptr, &trace);
  EXPECT_LE(test::MaxAbsDiff(trace.patch_embed, test::GoldenF32("vision.patch_embed")), kIntermediateMaxAbs);
  EXPECT_LE(test::MaxAbsDiff(trace.pos_embed, test::GoldenF32("vision.pos_embed_interp")), kIntermediateMaxAbs);
  EXPECT_LE(test::MaxAbsDiff(trace.block_input, test::GoldenF32("vision.block0_in")), kIntermediateMaxAbs);
  ASSERT_EQ(trace.block_outputs.size(), 2u);
  EXPECT_LE(test::MaxAbsDiff(trace.block_outputs[0], test::GoldenF32("vision.block0_out")), kIntermediateMaxAbs);
  EXPECT_LE(test::MaxAbsDiff(trace.block_outputs[1], test::GoldenF32("vision.block1_out")), kIntermediateMaxAbs);
  const auto rope = test::GoldenI64("vision.rope_position_ids");
  ASSERT_EQ(trace.rope_positions.size(), rope.size());
  for (size_t k = 0; k < rope.size(); ++k) ASSERT_EQ(trace.rope_positions[k], rope[k]) << k;
}

TEST(VisionTower, ImageEmbedsGate) {
  const std::vector<float> golden = test::GoldenF32("vision.image_embeds");
  const std::vector<float> out = GetTiny().tower->Forward(GoldenInput(), nullptr);
  ASSERT_EQ(out.size(), size_t(49) * 64);
  const double diff = test::MaxAbsDiff(out, golden), cos = test::Cosine(out, golden);
  std::printf("vision.image_embeds: max |diff| %.3g, cosine %.9f\n", diff, cos);
  EXPECT_LE(diff, kEmbedsMaxAbs);
  EXPECT_GE(cos, kEmbedsMinCosine);

  // Threads change the split, not the numbers beyond rounding.
  kernels::ThreadPool pool(2);
  EXPECT_LE(test::MaxAbsDiff(GetTiny().tower->Forward(GoldenInput(), &pool), out), 1e-6);
}

TEST(VisionTower, EndToEndFromImageFile) {
  const ImagePreprocessor pre(PreprocessorConfig::FromFile(test::TinyFile("preprocessor_config.json")));
  const PreprocessedImage img = pre.Preprocess(test::TinyFile("image.png"), ImageMode::kDetail);
  const std::vector<float> out = GetTiny().tower->Forward(img, nullptr);
  EXPECT_LE(test::MaxAbsDiff(out, test::GoldenF32("vision.image_embeds")), kEmbedsMaxAbs);
}

TEST(VisionTower, NegativeControlsFailTheGate) {
  const std::vector<float> golden = test::GoldenF32("vision.image_embeds");
  VisionAblation no_rotary;
  no_rotary.skip_rotary = true;
  const double d1 = test::MaxAbsDiff(GetTiny().tower->Forward(GoldenInput(), nullptr, nullptr, no_rotary), golden);
  VisionAblation no_pos;
  no_pos.skip_pos_embed = true;
  const double d2 = test::MaxAbsDiff(GetTiny().tower->Forward(GoldenInput(), nullptr, nullptr, no_pos), golden);
  std::printf("negative controls: no rotary %.3g, no pos-embed %.3g\n", d1, d2);
  EXPECT_GT(d1, 100 * kEmbedsMaxAbs);
  EXPECT_GT(d2, 100 * kEmbedsMaxAbs);
}

TEST(VisionTower, NonSquareDetailImage) {
  RgbImage img;
  img.height = 480;
  img.width = 640;
  img.pixels.resize(size_t(480) * 640 * 3);
  for (size_t k = 0; k < img.pixels.size(); ++k) img.pixels[k] = uint8_t((k * 2654435761u) >> 24);
  const ImagePreprocessor pre;  // released limits: 640x480 stays
  const PreprocessedImage p = pre.PreprocessImage(img, ImageMode::kDetail);
  ASSERT_EQ(p.merged_w(), 20);
  ASSERT_EQ(p.merged_h(), 15);
  kernels::ThreadPool pool(2);
  const std::vector<float> out = GetTiny().tower->Forward(p, &pool);
  ASSERT_EQ(out.size(), size_t(300) * 64);
  for (float v : out) ASSERT_TRUE(std::isfinite(v));
}

// Attention is within a frame (HF cu_seqlens): a two-frame input gives, frame by frame, what
// each frame gives alone. Frame B differs from A, so attention across frames would show.
TEST(VisionTower, FramesAttendOnlyWithinTheirFrame) {
  const PreprocessedImage a = GoldenInput();
  PreprocessedImage b = a;
  for (size_t k = 0; k < b.pixel_values.size(); ++k)
    b.pixel_values[k] = 0.5f * b.pixel_values[(k * 7919) % b.pixel_values.size()] - 0.25f;
  PreprocessedImage ab = a;
  ab.grid_t = 2;
  ab.pixel_values.insert(ab.pixel_values.end(), b.pixel_values.begin(), b.pixel_values.end());
  kernels::ThreadPool pool(2);
  const std::vector<float> out_a = GetTiny().tower->Forward(a, &pool);
  const std::vector<float> out_b = GetTiny().tower->Forward(b, &pool);
  const std::vector<float> out_ab = GetTiny().tower->Forward(ab, &pool);
  ASSERT_EQ(out_ab.size(), out_a.size() + out_b.size());
  const std::vector<float> first(out_ab.begin(), out_ab.begin() + long(out_a.size()));
  const std::vector<float> second(out_ab.begin() + long(out_a.size()), out_ab.end());
  EXPECT_LE(test::MaxAbsDiff(first, out_a), 1e-6);
  EXPECT_LE(test::MaxAbsDiff(second, out_b), 1e-6);
  EXPECT_GT(test::MaxAbsDiff(out_a, out_b), 1e-3);  // the frames really differ
}

// A 640×480 pseudo-random picture in detail mode: one frame of 1200 patches, longer than one
// attention query block and than one 256-row projection block.
PreprocessedImage LargeDetailFrame() {
  RgbImage img;
  img.height = 480;
  img.width = 640;
  img.pixels.resize(size_t(480) * 640 * 3);
  for (size_t k = 0; k < img.pixels.size(); ++k) img.pixels[k] = uint8_t((k * 40503u) >> 9);
  return ImagePreprocessor().PreprocessImage(img, ImageMode::kDetail);
}

// A frame longer than one attention query block (1200 patches), serial and on 2 threads.
TEST(VisionTower, LargeFrameSameOnThreads) {
  const PreprocessedImage p = LargeDetailFrame();
  kernels::ThreadPool pool(2);
  const std::vector<float> serial = GetTiny().tower->Forward(p, nullptr);
  EXPECT_LE(test::MaxAbsDiff(GetTiny().tower->Forward(p, &pool), serial), 1e-6);
}

// With a Stop flag the projections run in blocks of 256 rows (so Stop is seen within one
// block): the same result as one call; a set flag returns empty (cancelled).
TEST(VisionTower, StopFlagGivesTheSameResultAndStops) {
  const PreprocessedImage p = LargeDetailFrame();
  ASSERT_GT(p.n_patches(), 256);  // more than one row block
  kernels::ThreadPool pool(2);
  const std::vector<float> plain = GetTiny().tower->Forward(p, &pool);
  std::atomic<bool> cancel{false};
  const std::vector<float> with_flag = GetTiny().tower->Forward(p, &pool, nullptr, {}, {}, &cancel);
  ASSERT_EQ(with_flag.size(), plain.size());
  EXPECT_LE(test::MaxAbsDiff(with_flag, plain), 1e-6);
  cancel = true;
  EXPECT_TRUE(GetTiny().tower->Forward(p, &pool, nullptr, {}, {}, &cancel).empty());
}

TEST(VisionTower, BadInputsAndConfigs) {
  PreprocessedImage wrong = GoldenInput();
  wrong.pixel_values.pop_back();
  test::ExpectErrorContaining([&] { GetTiny().tower->Forward(wrong, nullptr); }, {"inconsistent"});
  PreprocessedImage other_patch = GoldenInput();
  other_patch.patch_dim = 1176;
  test::ExpectErrorContaining([&] { GetTiny().tower->Forward(other_patch, nullptr); }, {"1176", "1536"});
  VisionConfig deeper = GetTiny().config.vision;
  deeper.depth = 3;
  test::ExpectErrorContaining([&] { VisionTower::Load(GetTiny().store, deeper); }, {"blocks.2"});
  VisionConfig wider = GetTiny().config.vision;
  wider.hidden_size = 48;
  wider.num_heads = 3;
  test::ExpectErrorContaining([&] { VisionTower::Load(GetTiny().store, wider); }, {"patch_embed"});
}

}  // namespace
}  // namespace glance::vision
