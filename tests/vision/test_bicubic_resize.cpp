// The torchvision-style antialiased bicubic resize:
//  1. against the real HF processor output for the uncropped source (golden
//     extra.real_processor.pixel_values, 451x300 -> 448x288): the source is not shipped, but
//     image.png is its crop at (left 113, top 38), so every output pixel whose filter taps all
//     fall inside the crop is fully determined by image.png and must match the golden;
//  2. against a double-precision direct evaluation of the same scheme (double weights instead of
//     int16 fixed point; the width pass rounded to uint8 as PyTorch does) at other sizes.
#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "core/vision/bicubic_resize.h"
#include "core/vision/image_decode.h"
#include "core/vision/smart_resize.h"
#include "tests/vision/vision_test_util.h"

namespace glance::vision {
namespace {

RgbImage ImagePng() { return DecodeImage(test::ReadBytes(test::TinyFile("image.png")), "image.png"); }

// uint8 pixel value of golden pixel_values at (c, y, x) of an image gw patches wide.
double GoldenPixel(const std::vector<float>& pv, int gw, int c, int y, int x) {
  const int py = y / 16, px = x / 16;
  const int row = ((py / 2) * (gw / 2) + px / 2) * 4 + (py % 2) * 2 + (px % 2);
  const int col = c * 512 + (y % 16) * 16 + (x % 16);
  return double(pv[size_t(row) * 1536 + size_t(col)]) * 127.5 + 127.5;
}

struct CropMatch {
  int checked = 0;
  int exact = 0;
  double max_diff = 0;
};

// Compares `resized` (448x288) to the golden on the pixels determined by the crop alone.
CropMatch CompareInsideCrop(const RgbImage& resized) {
  constexpr int kTop = 38, kLeft = 113, kSide = 224;
  const std::vector<float> pv = test::GoldenF32("extra.real_processor.pixel_values");
  const ResampleTaps vt = BicubicAntialiasTaps(300, 288), ht = BicubicAntialiasTaps(451, 448);
  CropMatch m;
  for (int y = 0; y < 288; ++y) {
    if (vt.start[size_t(y)] < kTop || vt.start[size_t(y)] + vt.count[size_t(y)] > kTop + kSide) continue;
    for (int x = 0; x < 448; ++x) {
      if (ht.start[size_t(x)] < kLeft || ht.start[size_t(x)] + ht.count[size_t(x)] > kLeft + kSide) continue;
      for (int c = 0; c < 3; ++c) {
        const double d = std::fabs(GoldenPixel(pv, 28, c, y, x) - resized.at(y, x)[c]);
        ++m.checked;
        if (d < 1e-3) ++m.exact;
        m.max_diff = std::max(m.max_diff, d);
      }
    }
  }
  return m;
}

TEST(BicubicResize, MatchesHfProcessorWhereTheCropDeterminesTheOutput) {
  const auto grid = test::GoldenI64("extra.real_processor.image_grid_thw");
  ASSERT_EQ(grid, (std::vector<int64_t>{1, 18, 28}));
  const ResizeTarget t = SmartResize(300, 451, 32, 65536, 16777216);
  ASSERT_EQ(t.height, 288);
  ASSERT_EQ(t.width, 448);

  const RgbImage crop = ImagePng();
  RgbImage canvas;  // the source's size; pixels outside the crop are unknown (left 0)
  canvas.height = 300;
  canvas.width = 451;
  canvas.pixels.assign(size_t(300) * 451 * 3, 0);
  for (int y = 0; y < 224; ++y) {
    std::copy(crop.at(y, 0), crop.at(y, 0) + 224 * 3, canvas.pixels.data() + (size_t(38 + y) * 451 + 113) * 3);
  }
  const CropMatch ours = CompareInsideCrop(ResizeBicubicAntialias(canvas, 288, 448));
  EXPECT_GT(ours.checked, 3 * 200 * 200);
  EXPECT_EQ(ours.exact, ours.checked) << "max diff " << ours.max_diff << " LSB";
  EXPECT_LE(ours.max_diff, 1e-3);

  // Negative control: OpenCV's INTER_CUBIC (a = -0.75, no antialias) is not what HF does.
  cv::Mat src(300, 451, CV_8UC3, canvas.pixels.data()), dst;
  cv::resize(src, dst, cv::Size(448, 288), 0, 0, cv::INTER_CUBIC);
  RgbImage cv_img;
  cv_img.height = 288;
  cv_img.width = 448;
  cv_img.pixels.assign(dst.data, dst.data + dst.total() * 3);
  const CropMatch other = CompareInsideCrop(cv_img);
  EXPECT_LT(double(other.exact), 0.9 * other.checked);
}

// Direct double-precision evaluation of the same resampling (separable, width then height).
std::vector<double> OracleTaps(int in, int out, int i, int* start) {
  const double scale = double(in) / out;
  const double support = scale >= 1 ? 2.0 * scale : 2.0, inv = scale >= 1 ? 1.0 / scale : 1.0;
  const double center = scale * (i + 0.5);
  const int lo = std::max(0, int(center - support + 0.5)), hi = std::min(in, int(center + support + 0.5));
  auto cubic = [](double x) {
    const double a = -0.5;
    x = std::fabs(x);
    if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0.0;
  };
  std::vector<double> w;
  double total = 0;
  for (int j = lo; j < hi; ++j) {
    w.push_back(cubic((j - center + 0.5) * inv));
    total += w.back();
  }
  for (double& v : w) v /= total;
  *start = lo;
  return w;
}

RgbImage OracleResize(const RgbImage& src, int oh, int ow) {
  std::vector<double> tmp(size_t(src.height) * size_t(ow) * 3);
  for (int y = 0; y < src.height; ++y) {
    for (int x = 0; x < ow; ++x) {
      int s = 0;
      const auto w = ow == src.width ? std::vector<double>{1.0} : OracleTaps(src.width, ow, x, &s);
      if (ow == src.width) s = x;
      for (int c = 0; c < 3; ++c) {
        double acc = 0;
        for (size_t j = 0; j < w.size(); ++j) acc += w[j] * src.at(y, s + int(j))[c];
        tmp[(size_t(y) * size_t(ow) + size_t(x)) * 3 + size_t(c)] = std::clamp(std::floor(acc + 0.5), 0.0, 255.0);
      }
    }
  }
  RgbImage out;
  out.height = oh;
  out.width = ow;
  out.pixels.resize(size_t(oh) * size_t(ow) * 3);
  for (int y = 0; y < oh; ++y) {
    int s = 0;
    const auto w = oh == src.height ? std::vector<double>{1.0} : OracleTaps(src.height, oh, y, &s);
    if (oh == src.height) s = y;
    for (int x = 0; x < ow; ++x) {
      for (int c = 0; c < 3; ++c) {
        double acc = 0;
        for (size_t j = 0; j < w.size(); ++j) acc += w[j] * tmp[(size_t(s + int(j)) * size_t(ow) + size_t(x)) * 3 + size_t(c)];
        out.pixels[(size_t(y) * size_t(ow) + size_t(x)) * 3 + size_t(c)] =
            static_cast<uint8_t>(std::clamp(std::floor(acc + 0.5), 0.0, 255.0));
      }
    }
  }
  return out;
}

TEST(BicubicResize, AgreesWithDoublePrecisionOracle) {
  const RgbImage src = ImagePng();
  const int sizes[][2] = {{100, 150}, {300, 200}, {224, 97}, {64, 64}, {513, 224}, {7, 333}};
  for (const auto& s : sizes) {
    const RgbImage ours = ResizeBicubicAntialias(src, s[0], s[1]);
    const RgbImage ref = OracleResize(src, s[0], s[1]);
    ASSERT_EQ(ours.pixels.size(), ref.pixels.size());
    size_t exact = 0;
    int max_diff = 0;
    for (size_t k = 0; k < ref.pixels.size(); ++k) {
      const int d = std::abs(int(ours.pixels[k]) - int(ref.pixels[k]));
      exact += d == 0;
      max_diff = std::max(max_diff, d);
    }
    EXPECT_LE(max_diff, 1) << s[0] << "x" << s[1];  // int16 weight quantisation at a .5 boundary
    EXPECT_GE(double(exact), 0.995 * double(ref.pixels.size())) << s[0] << "x" << s[1];
  }
}

TEST(BicubicResize, IdentityAndConstantImages) {
  const RgbImage src = ImagePng();
  EXPECT_EQ(ResizeBicubicAntialias(src, 224, 224).pixels, src.pixels);
  RgbImage flat;
  flat.height = 37;
  flat.width = 91;
  flat.pixels.assign(size_t(37) * 91 * 3, 77);
  const RgbImage r = ResizeBicubicAntialias(flat, 250, 13);  // weights sum to 1 both ways
  for (uint8_t v : r.pixels) ASSERT_EQ(v, 77);
}

}  // namespace
}  // namespace glance::vision
