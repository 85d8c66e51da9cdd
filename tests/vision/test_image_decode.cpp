// Decoding: every supported format, EXIF orientation, alpha over white, grey, 16-bit, and every
// kind of bad input giving a glance::Error with a clear message (never a crash).
#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "core/vision/image_decode.h"
#include "core/vision/image_header.h"
#include "core/vision/image_preprocessor.h"
#include "tests/vision/vision_test_util.h"

namespace glance::vision {
namespace {

// image.png as an RGB Mat (OpenCV's own reader, so the reference is independent of DecodeImage).
cv::Mat ReferenceRgb() {
  cv::Mat bgr = cv::imread(test::TinyFile("image.png"), cv::IMREAD_COLOR);
  cv::Mat rgb;
  cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
  return rgb;
}

std::vector<uint8_t> Encode(const cv::Mat& bgr_or_any, const std::string& ext, std::vector<int> params = {}) {
  std::vector<uint8_t> out;
  EXPECT_TRUE(cv::imencode(ext, bgr_or_any, out, params)) << ext;
  return out;
}

double MeanAbsDiff(const RgbImage& img, const cv::Mat& rgb) {
  EXPECT_EQ(img.height, rgb.rows);
  EXPECT_EQ(img.width, rgb.cols);
  double s = 0;
  for (int y = 0; y < rgb.rows; ++y) {
    for (int x = 0; x < rgb.cols; ++x) {
      for (int c = 0; c < 3; ++c) s += std::abs(int(img.at(y, x)[c]) - int(rgb.at<cv::Vec3b>(y, x)[c]));
    }
  }
  return s / (double(rgb.rows) * rgb.cols * 3);
}

constexpr const char* kNotAnImage = "is not an image Glance can read (PNG, JPEG, WebP, BMP, TIFF)";

TEST(ImageDecode, AllFormats) {
  const cv::Mat rgb = ReferenceRgb();
  cv::Mat bgr;
  cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
  struct Case {
    const char* ext;
    ImageFormat format;
    std::vector<int> params;
    double max_mean_diff;
  };
  const Case cases[] = {
      {".png", ImageFormat::kPng, {}, 0.0},
      {".bmp", ImageFormat::kBmp, {}, 0.0},
      {".tiff", ImageFormat::kTiff, {}, 0.0},
      {".webp", ImageFormat::kWebp, {cv::IMWRITE_WEBP_QUALITY, 101}, 0.0},  // > 100 = lossless
      {".webp", ImageFormat::kWebp, {cv::IMWRITE_WEBP_QUALITY, 90}, 4.0},
      {".jpg", ImageFormat::kJpeg, {cv::IMWRITE_JPEG_QUALITY, 95}, 3.0},
  };
  for (const Case& c : cases) {
    const std::vector<uint8_t> bytes = Encode(bgr, c.ext, c.params);
    EXPECT_EQ(DetectImageFormat(bytes), c.format) << c.ext;
    const auto dims = ReadImageDims(bytes, c.format);
    ASSERT_TRUE(dims.has_value()) << c.ext;
    EXPECT_EQ(dims->width, 224);
    EXPECT_EQ(dims->height, 224);
    const RgbImage img = DecodeImage(bytes, std::string("test") + c.ext);
    const double diff = MeanAbsDiff(img, rgb);
    EXPECT_LE(diff, c.max_mean_diff) << c.ext;
  }
  // Negative control: channels swapped (BGR fed as RGB) is far off.
  EXPECT_GT(MeanAbsDiff(DecodeImage(Encode(rgb, ".png"), "swapped"), rgb), 5.0);
}

// Inserts an APP1 Exif segment carrying only the orientation tag right after SOI.
std::vector<uint8_t> WithExifOrientation(const std::vector<uint8_t>& jpeg, uint16_t orientation) {
  const uint8_t segment[] = {
      0xFF, 0xE1, 0, 34,                                     // APP1, length 34 (incl. these 2)
      'E', 'x', 'i', 'f', 0, 0,                              // Exif header
      'M', 'M', 0, 42, 0, 0, 0, 8,                           // big-endian TIFF, IFD0 at 8
      0, 1,                                                  // one entry
      0x01, 0x12, 0, 3, 0, 0, 0, 1,                          // tag 0x0112 SHORT count 1
      uint8_t(orientation >> 8), uint8_t(orientation & 0xFF), 0, 0,
      0, 0, 0, 0};                                           // no next IFD
  std::vector<uint8_t> out;
  out.reserve(jpeg.size() + sizeof(segment));
  for (size_t k = 0; k < 2; ++k) out.push_back(jpeg[k]);    // SOI
  for (uint8_t b : segment) out.push_back(b);
  for (size_t k = 2; k < jpeg.size(); ++k) out.push_back(jpeg[k]);
  return out;
}

TEST(ImageDecode, ExifOrientationIsApplied) {
  // 64 wide x 32 tall: left half red, right half blue (BGR order for OpenCV).
  cv::Mat bgr(32, 64, CV_8UC3, cv::Scalar(255, 0, 0));
  bgr(cv::Rect(0, 0, 32, 32)).setTo(cv::Scalar(0, 0, 255));
  const std::vector<uint8_t> plain = Encode(bgr, ".jpg", {cv::IMWRITE_JPEG_QUALITY, 100});
  EXPECT_EQ(ReadExifOrientation(plain, ImageFormat::kJpeg), 1);

  const std::vector<uint8_t> rotated = WithExifOrientation(plain, 6);  // display = rotate 90° CW
  EXPECT_EQ(ReadExifOrientation(rotated, ImageFormat::kJpeg), 6);
  const RgbImage img = DecodeImage(rotated, "exif6.jpg");
  ASSERT_EQ(img.width, 32);
  ASSERT_EQ(img.height, 64);
  // After a clockwise turn the old left half (red) is on top, the right half (blue) below.
  EXPECT_GT(img.at(10, 16)[0], 200);
  EXPECT_LT(img.at(10, 16)[2], 60);
  EXPECT_GT(img.at(54, 16)[2], 200);
  EXPECT_LT(img.at(54, 16)[0], 60);

  const RgbImage ccw = DecodeImage(WithExifOrientation(plain, 8), "exif8.jpg");  // 90° CCW
  ASSERT_EQ(ccw.height, 64);
  EXPECT_GT(ccw.at(54, 16)[0], 200);  // red now at the bottom
  const RgbImage flipped = DecodeImage(WithExifOrientation(plain, 2), "exif2.jpg");  // mirror
  ASSERT_EQ(flipped.width, 64);
  EXPECT_GT(flipped.at(16, 60)[0], 200);  // red now on the right
}

TEST(ImageDecode, AlphaIsCompositedOverWhite) {
  cv::Mat bgra(2, 3, CV_8UC4);
  const uint8_t alphas[3] = {0, 128, 255};
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x) bgra.at<cv::Vec4b>(y, x) = cv::Vec4b(20, 100, 200, alphas[x]);  // B G R A
  }
  const RgbImage img = DecodeImage(Encode(bgra, ".png"), "rgba.png");
  ASSERT_EQ(img.width, 3);
  const int rgb[3] = {200, 100, 20};
  for (int x = 0; x < 3; ++x) {
    for (int c = 0; c < 3; ++c) {
      // c·a + 255·(1 - a), the exact value; PIL's fixed point may round differently by 1.
      const double expect = (rgb[c] * alphas[x] + 255.0 * (255 - alphas[x])) / 255.0;
      EXPECT_NEAR(img.at(1, x)[c], expect, 1.0) << "x=" << x << " c=" << c;
    }
  }
  EXPECT_EQ(img.at(0, 0)[0], 255);  // fully transparent -> white, not black
}

TEST(ImageDecode, GreyAndSixteenBit) {
  cv::Mat grey(4, 5, CV_8UC1);
  for (int i = 0; i < 20; ++i) grey.data[i] = static_cast<uint8_t>(i * 12);
  const RgbImage g = DecodeImage(Encode(grey, ".png"), "grey.png");
  ASSERT_EQ(g.width, 5);
  for (int i = 0; i < 20; ++i) {
    for (int c = 0; c < 3; ++c) EXPECT_EQ(g.pixels[size_t(i) * 3 + size_t(c)], i * 12);
  }
  cv::Mat deep(2, 2, CV_16UC3, cv::Scalar(0x1234, 0x8000, 0xFFFF));  // B G R
  const RgbImage d = DecodeImage(Encode(deep, ".png"), "deep.png");
  EXPECT_EQ(d.at(0, 0)[0], 0xFF);
  EXPECT_EQ(d.at(0, 0)[1], 0x80);
  EXPECT_EQ(d.at(0, 0)[2], 0x12);
}

TEST(ImageDecode, BadInputsGiveClearErrors) {
  const std::vector<uint8_t> text = {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '\n'};
  test::ExpectErrorContaining([&] { DecodeImage(text, "notes.txt"); }, {"notes.txt", kNotAnImage});
  test::ExpectErrorContaining([&] { DecodeImage({}, "empty.png"); }, {"empty.png", kNotAnImage, "empty"});

  std::vector<uint8_t> png = test::ReadBytes(test::TinyFile("image.png"));
  ASSERT_GT(png.size(), 1000u);
  const std::vector<uint8_t> truncated(png.begin(), png.begin() + static_cast<long>(png.size() / 2));
  test::ExpectErrorContaining([&] { DecodeImage(truncated, "cut.png"); }, {"cut.png", kNotAnImage});
  const std::vector<uint8_t> header_only(png.begin(), png.begin() + 40);
  test::ExpectErrorContaining([&] { DecodeImage(header_only, "stub.png"); }, {"stub.png", kNotAnImage});

  // A PNG header claiming 30000x30000: refused from the header, before any decoder allocates.
  std::vector<uint8_t> huge(png.begin(), png.end());
  const uint32_t side = 30000;
  for (int k = 0; k < 4; ++k) {
    huge[16 + size_t(k)] = uint8_t(side >> (24 - 8 * k));
    huge[20 + size_t(k)] = uint8_t(side >> (24 - 8 * k));
  }
  test::ExpectErrorContaining([&] { DecodeImage(huge, "huge.png"); }, {"huge.png", "30000x30000", "100 megapixels"});

  // Files: missing, a directory, a text file on disk.
  const ImagePreprocessor pre;
  test::ExpectErrorContaining([&] { pre.Preprocess("/nonexistent/x.png", ImageMode::kFast); }, {"does not exist"});
  test::ExpectErrorContaining([&] { pre.Preprocess(test::TinyDir(), ImageMode::kFast); }, {"not a regular file"});
  const std::string txt = test::WriteTemp("notes.txt", text);
  test::ExpectErrorContaining([&] { pre.Preprocess(txt, ImageMode::kDetail); }, {"notes.txt", kNotAnImage});
  const std::string empty = test::WriteTemp("empty.jpg", {});
  test::ExpectErrorContaining([&] { pre.Preprocess(empty, ImageMode::kDetail); }, {"empty.jpg", kNotAnImage});

  // Aspect ratio beyond 200:1 (HF raises too) is an Error, not a crash.
  cv::Mat strip(1, 300, CV_8UC3, cv::Scalar(1, 2, 3));
  test::ExpectErrorContaining([&] { pre.PreprocessFromBytes(Encode(strip, ".png"), ImageMode::kDetail, "strip.png"); },
                              {"200"});
}

TEST(ImageDecode, OnePixelImageGivesSaneOutput) {
  cv::Mat dot(1, 1, CV_8UC3, cv::Scalar(10, 20, 30));
  const ImagePreprocessor released;  // defaults = released Qwen3.5 limits
  const PreprocessedImage d = released.PreprocessFromBytes(Encode(dot, ".png"), ImageMode::kDetail, "dot.png");
  EXPECT_EQ(d.resized_h, 256);
  EXPECT_EQ(d.resized_w, 256);
  EXPECT_EQ(d.tokens(), 64);
  // A constant image stays constant through the resize: R = 30 -> (30 - 127.5) / 127.5.
  EXPECT_NEAR(d.pixel_values[0], (30.0 - 127.5) / 127.5, 1e-6);
  const PreprocessedImage f = released.PreprocessFromBytes(Encode(dot, ".png"), ImageMode::kFast, "dot.png");
  EXPECT_EQ(f.tokens(), 49);
}

TEST(ImageDecode, RgbBufferWithStride) {
  std::vector<uint8_t> buf(2 * 16, 0);  // 2 rows of 5 px (15 bytes) + 1 padding byte
  for (int y = 0; y < 2; ++y) {
    for (int i = 0; i < 15; ++i) buf[size_t(y) * 16 + size_t(i)] = uint8_t(y * 100 + i);
  }
  const RgbImage img = RgbImageFromBuffer(2, 5, buf.data(), 16);
  EXPECT_EQ(img.at(1, 4)[2], 114);
  test::ExpectErrorContaining([&] { RgbImageFromBuffer(2, 5, buf.data(), 10); }, {"stride"});
  test::ExpectErrorContaining([&] { RgbImageFromBuffer(0, 5, buf.data()); }, {"empty"});
}

}  // namespace
}  // namespace glance::vision
