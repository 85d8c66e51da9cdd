// ImagePreprocessor against HF's pixel_values for image.png, plus fast/detail modes, the config
// reader and the GUI's RGB-buffer entry point.
#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "core/vision/bicubic_resize.h"
#include "core/vision/image_decode.h"
#include "core/vision/image_preprocessor.h"
#include "tests/vision/vision_test_util.h"

namespace glance::vision {
namespace {

ImagePreprocessor TinyPreprocessor() {
  return ImagePreprocessor(PreprocessorConfig::FromFile(test::TinyFile("preprocessor_config.json")));
}

TEST(Preprocessor, ConfigFile) {
  const PreprocessorConfig c = PreprocessorConfig::FromFile(test::TinyFile("preprocessor_config.json"));
  EXPECT_EQ(c.min_pixels, 3136);
  EXPECT_EQ(c.max_pixels, 16777216);
  EXPECT_EQ(c.patch_size, 16);
  EXPECT_EQ(c.temporal_patch_size, 2);
  EXPECT_EQ(c.merge_size, 2);
  EXPECT_EQ(c.patch_dim(), 1536);
  const PreprocessorConfig d;  // released Qwen3.5 defaults
  EXPECT_EQ(d.min_pixels, 65536);
  EXPECT_EQ(d.max_pixels, 16777216);
  const PreprocessorConfig o = PreprocessorConfig::FromJsonText(
      R"({"size": {"shortest_edge": 100, "longest_edge": 200000}, "min_pixels": 50176, "max_pixels": 1000000})", "o");
  EXPECT_EQ(o.min_pixels, 50176);
  EXPECT_EQ(o.max_pixels, 1000000);
  test::ExpectErrorContaining([] { PreprocessorConfig::FromJsonText("{", "bad.json"); }, {"bad.json", "JSON"});
  test::ExpectErrorContaining([] { PreprocessorConfig::FromJsonText(R"({"patch_size": "x"})", "p.json"); },
                              {"p.json", "patch_size"});
  test::ExpectErrorContaining([] { PreprocessorConfig::FromJsonText(R"({"image_std": [0.5, 0, 0.5]})", "s.json"); },
                              {"s.json", "image_std"});
  test::ExpectErrorContaining([] { PreprocessorConfig::FromFile("/nonexistent/pp.json"); }, {"/nonexistent/pp.json"});
}

TEST(Preprocessor, PixelValuesMatchHf) {
  const std::vector<float> golden = test::GoldenF32("pixel_values");
  const auto grid = test::GoldenI64("image_grid_thw");
  const PreprocessedImage p = TinyPreprocessor().Preprocess(test::TinyFile("image.png"), ImageMode::kDetail);
  EXPECT_EQ(p.grid_t, grid[0]);
  EXPECT_EQ(p.grid_h, grid[1]);
  EXPECT_EQ(p.grid_w, grid[2]);
  EXPECT_EQ(p.tokens(), 49);
  EXPECT_EQ(p.source_h, 224);
  EXPECT_EQ(p.resized_w, 224);
  const double diff = test::MaxAbsDiff(p.pixel_values, golden);
  EXPECT_LE(diff, 1e-6);
  // The PIL backend's two-step normalisation ((x/255) - 0.5) / 0.5 is also within 1e-6 here
  // (golden.json: the backends differ by 5.9e-8); ours is the torchvision fused form.
  // Negative control: the same pixels in plain raster patch order are far from the golden.
  std::vector<float> raster(p.pixel_values.size());
  for (int r = 0; r < 14; ++r) {
    for (int c = 0; c < 14; ++c) {
      const int merge_row = ((r / 2) * 7 + c / 2) * 4 + (r % 2) * 2 + (c % 2);
      std::copy_n(p.pixel_values.begin() + merge_row * 1536, 1536, raster.begin() + (r * 14 + c) * 1536);
    }
  }
  EXPECT_GT(test::MaxAbsDiff(raster, golden), 0.1);
  // The two temporal copies are identical.
  for (int k = 0; k < 256; ++k) ASSERT_EQ(p.pixel_values[size_t(k)], p.pixel_values[256 + size_t(k)]);
}

TEST(Preprocessor, RgbBufferMatchesFile) {
  const RgbImage img = DecodeImage(test::ReadBytes(test::TinyFile("image.png")), "image.png");
  const ImagePreprocessor pre = TinyPreprocessor();
  const PreprocessedImage a = pre.PreprocessFromRgb(img.height, img.width, img.pixels.data(), ImageMode::kDetail);
  EXPECT_LE(test::MaxAbsDiff(a.pixel_values, test::GoldenF32("pixel_values")), 1e-6);
}

RgbImage Synthetic(int h, int w) {
  RgbImage img;
  img.height = h;
  img.width = w;
  img.pixels.resize(size_t(h) * size_t(w) * 3);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      uint8_t* p = img.pixels.data() + (size_t(y) * size_t(w) + size_t(x)) * 3;
      p[0] = uint8_t((x * 7 + y) & 255);
      p[1] = uint8_t((y * 5) & 255);
      p[2] = uint8_t(((x / 40) % 2) * 200 + 20);
    }
  }
  return img;
}

TEST(Preprocessor, FastModeIsA49TokenCentreCrop) {
  const ImagePreprocessor pre;  // released limits
  const RgbImage img = Synthetic(480, 640);
  const PreprocessedImage fast = pre.PreprocessImage(img, ImageMode::kFast);
  EXPECT_EQ(fast.grid_h, 14);
  EXPECT_EQ(fast.grid_w, 14);
  EXPECT_EQ(fast.tokens(), 49);
  EXPECT_EQ(fast.resized_h, 224);
  EXPECT_EQ(fast.source_w, 640);
  // Same as cropping columns 80..559 by hand and resizing that square to 224.
  RgbImage crop;
  crop.height = crop.width = 480;
  for (int y = 0; y < 480; ++y) crop.pixels.insert(crop.pixels.end(), img.at(y, 80), img.at(y, 80) + 480 * 3);
  const PreprocessedImage manual = pre.PreprocessImage(ResizeBicubicAntialias(crop, 224, 224), ImageMode::kFast);
  EXPECT_EQ(fast.pixel_values, manual.pixel_values);
  // Negative control: a crop from the left edge differs.
  RgbImage left;
  left.height = left.width = 480;
  for (int y = 0; y < 480; ++y) left.pixels.insert(left.pixels.end(), img.at(y, 0), img.at(y, 0) + 480 * 3);
  EXPECT_NE(pre.PreprocessImage(left, ImageMode::kFast).pixel_values, fast.pixel_values);
  // Portrait too.
  EXPECT_EQ(pre.PreprocessImage(Synthetic(500, 120), ImageMode::kFast).tokens(), 49);
}

TEST(Preprocessor, DetailModeNonSquare) {
  const ImagePreprocessor pre;
  const PreprocessedImage d = pre.PreprocessImage(Synthetic(480, 640), ImageMode::kDetail);
  EXPECT_EQ(d.resized_h, 480);
  EXPECT_EQ(d.resized_w, 640);
  EXPECT_EQ(d.merged_h(), 15);
  EXPECT_EQ(d.merged_w(), 20);
  EXPECT_EQ(d.tokens(), 300);
  EXPECT_EQ(d.pixel_values.size(), size_t(1200) * 1536);
}

}  // namespace
}  // namespace glance::vision
