// Decoding: every supported format, EXIF orientation, alpha over white, grey, 16-bit, and every
// kind of bad input giving a glance::Error with a clear message (never a crash).
#include <gtest/gtest.h>

#include <array>
#include <chrono>

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
  // A link loop is not "missing": the error says what it is.
  const std::string loop = test::WriteTemp("loop-target.png", {}) + ".loop.png";
  std::filesystem::remove(loop);
  std::filesystem::create_symlink(loop, loop);
  try {
    pre.Preprocess(loop, ImageMode::kFast);
    ADD_FAILURE() << "a link loop was read";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(loop), std::string::npos) << what;
    EXPECT_NE(what.find("symbolic links"), std::string::npos) << what;
    EXPECT_EQ(what.find("does not exist"), std::string::npos) << what;
  }
  std::filesystem::remove(loop);
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

// ---- Issue 12 item 3: the pixel limit holds for every header form the decoders accept. ----
// Each hostile variant is checked two ways: the header walk must report the claimed size (so the
// refusal happens before a decoder allocates), and DecodeImage must refuse it with the size in
// the message. Small versions of the same header forms must decode: that shows the decoder
// really accepts the form, so the walk has to as well.
namespace glance::vision {
namespace {

size_t FindMarker(const std::vector<uint8_t>& jpeg, uint8_t marker) {
  for (size_t i = 2; i + 1 < jpeg.size(); ++i)
    if (jpeg[i] == 0xFF && jpeg[i + 1] == marker) return i;
  return std::string::npos;
}

// A real JPEG with `junk` inserted after the APP0 segment and, when side > 0, its SOF0 frame
// header rewritten to side x side.
std::vector<uint8_t> JpegWithJunk(const std::vector<uint8_t>& junk, uint16_t side) {
  cv::Mat img(16, 24, CV_8UC3, cv::Scalar(40, 120, 200));
  std::vector<uint8_t> jpeg = Encode(img, ".jpg");
  if (side > 0) {
    const size_t sof = FindMarker(jpeg, 0xC0);
    EXPECT_NE(sof, std::string::npos);
    jpeg[sof + 5] = uint8_t(side >> 8);
    jpeg[sof + 6] = uint8_t(side);
    jpeg[sof + 7] = uint8_t(side >> 8);
    jpeg[sof + 8] = uint8_t(side);
  }
  EXPECT_EQ(jpeg[2], 0xFF);
  EXPECT_EQ(jpeg[3], 0xE0);  // OpenCV writes APP0 (JFIF) first
  const size_t app0_end = 4 + ((size_t(jpeg[4]) << 8) | jpeg[5]);
  jpeg.insert(jpeg.begin() + static_cast<long>(app0_end), junk.begin(), junk.end());
  return jpeg;
}

TEST(ImageLimits, JpegJunkAndFillBytesCannotHideTheFrameHeader) {
  const std::vector<std::vector<uint8_t>> junks = {
      {0x00}, {0x12, 0x34, 0x56}, {0xFF, 0xFF, 0xFF}, {0xFF, 0x00}, {0x7A, 0xFF, 0x00, 0x01, 0xFF}, {}};
  for (const auto& junk : junks) {
    // Control: the decoder accepts the junk (libjpeg only warns), so the form is real.
    const RgbImage small = DecodeImage(JpegWithJunk(junk, 0), "small.jpg");
    EXPECT_EQ(small.width, 24);
    EXPECT_EQ(small.height, 16);
    const std::vector<uint8_t> huge = JpegWithJunk(junk, 30000);
    const auto dims = ReadImageDims(huge, ImageFormat::kJpeg);
    ASSERT_TRUE(dims.has_value()) << junk.size() << " junk bytes hid the frame header";
    EXPECT_EQ(dims->width, 30000);
    EXPECT_EQ(dims->height, 30000);
    test::ExpectErrorContaining([&] { DecodeImage(huge, "junk.jpg"); }, {"junk.jpg", "30000x30000", "megapixels"});
  }
}

TEST(ImageLimits, JpegWhoseSizeCannotBeReadIsRefusedNotDecoded) {
  // SOI followed straight by a scan: no frame header before it.
  const std::vector<uint8_t> no_sof = {0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xD9};
  test::ExpectErrorContaining([&] { DecodeImage(no_sof, "nosof.jpg"); }, {"nosof.jpg", kNotAnImage, "how large"});
}

// A minimal uncompressed 8-bit grey TIFF. The width/height entries use `size_type` (1 BYTE,
// 3 SHORT, 4 LONG, 6 SBYTE, 8 SSHORT, 9 SLONG); pixel data is present only when `with_pixels`.
// `pages` > 1 chains further IFDs of `next_side` x `next_side`.
struct TiffSpec {
  bool little_endian = true;
  uint16_t size_type = 4;
  uint32_t width = 4, height = 3;
  bool with_pixels = true;
  std::vector<std::array<uint32_t, 3>> extra;  // {tag, type, value} (SHORT/LONG), added in order
  bool duplicate_width = false;                // a second ImageWidth entry of 1 after the first
  uint32_t next_page_side = 0;                 // a second page of this size (0: one page)
};

std::vector<uint8_t> MakeTiff(const TiffSpec& s) {
  std::vector<uint8_t> out;
  auto u16 = [&](uint32_t v) {
    if (s.little_endian) { out.push_back(uint8_t(v)); out.push_back(uint8_t(v >> 8)); }
    else { out.push_back(uint8_t(v >> 8)); out.push_back(uint8_t(v)); }
  };
  auto u32 = [&](uint32_t v) {
    if (s.little_endian) { u16(v & 0xFFFF); u16(v >> 16); }
    else { u16(v >> 16); u16(v & 0xFFFF); }
  };
  // Value field of an entry: small types sit left-justified in the 4 bytes.
  auto value = [&](uint32_t type, uint32_t v) {
    if (type == 1 || type == 6) { out.push_back(uint8_t(v)); out.push_back(0); out.push_back(0); out.push_back(0); }
    else if (type == 3 || type == 8) { u16(v); u16(0); }
    else u32(v);
  };
  auto entry = [&](uint32_t tag, uint32_t type, uint32_t v) { u16(tag); u16(type); u32(1); value(type, v); };
  auto write_ifd = [&](uint32_t w, uint32_t h, uint32_t type, bool first, uint32_t pixels_at, uint32_t next) {
    std::vector<std::array<uint32_t, 3>> es = {{256, type, w}};
    if (first && s.duplicate_width) es.push_back({256, type, 1});
    es.push_back({257, type, h});
    es.push_back({258, 3, 8});
    es.push_back({259, 3, 1});
    es.push_back({262, 3, 1});
    es.push_back({273, 4, pixels_at});
    es.push_back({277, 3, 1});
    es.push_back({278, 4, h});
    es.push_back({279, 4, w * h});
    if (first) es.insert(es.end(), s.extra.begin(), s.extra.end());
    u16(static_cast<uint32_t>(es.size()));
    for (const auto& e : es) entry(e[0], e[1], e[2]);
    u32(next);
  };
  out.push_back(s.little_endian ? 'I' : 'M');
  out.push_back(s.little_endian ? 'I' : 'M');
  u16(42);
  u32(8);
  const uint32_t n_first = 9 + static_cast<uint32_t>(s.extra.size()) + (s.duplicate_width ? 1 : 0);
  const uint32_t ifd1_at = 8 + 2 + 12 * n_first + 4;
  const uint32_t ifd2_at = ifd1_at;  // the second IFD (if any) follows the first
  const uint32_t pixels_at = s.next_page_side ? ifd2_at + 2 + 12 * 9 + 4 : ifd1_at;
  write_ifd(s.width, s.height, s.size_type, true, pixels_at, s.next_page_side ? ifd2_at : 0);
  if (s.next_page_side) write_ifd(s.next_page_side, s.next_page_side, 4, false, pixels_at, 0);
  if (s.with_pixels) {
    const uint64_t first = uint64_t{s.width} * s.height;
    for (uint64_t i = 0; i < first; ++i) out.push_back(uint8_t(i * 7));
  }
  return out;
}

TEST(ImageLimits, TiffSizeInEveryIntegerTypeIsChecked) {
  for (bool le : {true, false}) {
    for (uint16_t type : {uint16_t{3}, uint16_t{4}, uint16_t{8}, uint16_t{9}}) {
      TiffSpec small;
      small.little_endian = le;
      small.size_type = type;
      // Control: the decoder reads this header form.
      const RgbImage img = DecodeImage(MakeTiff(small), "small.tiff");
      EXPECT_EQ(img.width, 4) << "type " << type;
      EXPECT_EQ(img.height, 3) << "type " << type;

      TiffSpec big = small;
      big.width = (type == 3 || type == 8) ? 30000 : 12000;  // SSHORT tops out at 32767
      big.height = big.width;
      big.with_pixels = false;
      const std::vector<uint8_t> bytes = MakeTiff(big);
      const auto dims = ReadImageDims(bytes, ImageFormat::kTiff);
      ASSERT_TRUE(dims.has_value()) << "type " << type;
      EXPECT_EQ(dims->width, big.width) << "type " << type;
      const std::string want = std::to_string(big.width) + "x" + std::to_string(big.height);
      test::ExpectErrorContaining([&] { DecodeImage(bytes, "big.tiff"); }, {"big.tiff", want.c_str(), "megapixels"});
    }
  }
}

TEST(ImageLimits, TiffDuplicateTagsTilesAndPages) {
  // A second ImageWidth entry of 1 after the real (huge) one cannot shrink the size seen.
  TiffSpec dup;
  dup.width = dup.height = 20000;
  dup.with_pixels = false;
  dup.duplicate_width = true;
  const auto dims = ReadImageDims(MakeTiff(dup), ImageFormat::kTiff);
  ASSERT_TRUE(dims.has_value());
  EXPECT_EQ(dims->width, 20000);
  test::ExpectErrorContaining([&] { DecodeImage(MakeTiff(dup), "dup.tiff"); }, {"dup.tiff", "megapixels"});

  // A small image with a 20000 x 20000 tile: the decoder would allocate the tile.
  TiffSpec tiled;
  tiled.extra = {{322, 4, 20000}, {323, 4, 20000}};
  test::ExpectErrorContaining([&] { DecodeImage(MakeTiff(tiled), "tile.tiff"); }, {"tile.tiff", "20000x20000"});
  // Sides of 2^32-1 for both the image and its tile: the areas compared overflowed int64_t (UB,
  // found by the fuzz_image campaign); now compared exactly and refused by the size.
  TiffSpec widest;
  widest.width = widest.height = 0xFFFFFFFFu;
  widest.with_pixels = false;
  widest.extra = {{322, 4, 0xFFFFFFFFu}, {323, 4, 0xFFFFFFFFu}};
  const auto widest_dims = ReadImageDims(MakeTiff(widest), ImageFormat::kTiff);
  ASSERT_TRUE(widest_dims.has_value());
  EXPECT_EQ(widest_dims->width, 4294967295);
  test::ExpectErrorContaining([&] { DecodeImage(MakeTiff(widest), "widest.tiff"); },
                              {"widest.tiff", "4294967295x4294967295"});

  // Multi-page: the first page is what is decoded, and the one checked. A huge second page
  // after a small first one decodes the first; a huge first page is refused.
  TiffSpec two;
  two.next_page_side = 30000;
  const RgbImage first = DecodeImage(MakeTiff(two), "pages.tiff");
  EXPECT_EQ(first.width, 4);
  TiffSpec huge_first;
  huge_first.width = huge_first.height = 15000;
  huge_first.with_pixels = false;
  huge_first.next_page_side = 2;
  test::ExpectErrorContaining([&] { DecodeImage(MakeTiff(huge_first), "pages.tiff"); }, {"15000x15000"});
}

TEST(ImageLimits, WebpAndBmpHeadersAreChecked) {
  cv::Mat img(8, 8, CV_8UC3, cv::Scalar(1, 2, 3));
  // BMP: width at 18, height at 22 (BITMAPINFOHEADER); a negative height means top-down rows.
  std::vector<uint8_t> bmp = Encode(img, ".bmp");
  auto put32 = [](std::vector<uint8_t>& b, size_t at, int32_t v) {
    for (int k = 0; k < 4; ++k) b[at + size_t(k)] = uint8_t(uint32_t(v) >> (8 * k));
  };
  put32(bmp, 18, 20000);
  put32(bmp, 22, -20000);
  test::ExpectErrorContaining([&] { DecodeImage(bmp, "big.bmp"); }, {"big.bmp", "20000x20000"});
  // WebP lossless (VP8L): 14-bit width-1 and height-1 after the 0x2F signature byte.
  std::vector<uint8_t> webp = Encode(img, ".webp", {cv::IMWRITE_WEBP_QUALITY, 101});
  ASSERT_EQ(std::string(webp.begin() + 12, webp.begin() + 16), "VP8L");
  const uint32_t bits = (16383u) | (16383u << 14) | (uint32_t(webp[24]) >> 4 << 28);
  for (int k = 0; k < 4; ++k) webp[21 + size_t(k)] = uint8_t(bits >> (8 * k));
  test::ExpectErrorContaining([&] { DecodeImage(webp, "big.webp"); }, {"big.webp", "16384x16384"});
}

// OpenCV picks its decoder by signature, and two decoders look past the first bytes: DICOM
// ("DICM" at 128, GDCM) and GDAL's DTED ("DTED" at 140). A file detected as one of Glance's
// formats that also carries either is refused before any decoder sees it: a fuzzed WebP whose
// own decoder turned it down went to GDCM, which aborted on an assert (and decoded a size the
// header walk never checked). Every format, both signatures; control: the same bytes without.
TEST(ImageLimits, AnotherDecodersSignatureInsideIsRefused) {
  cv::Mat img(24, 24, CV_8UC3, cv::Scalar(10, 200, 30));
  cv::randu(img, 0, 255);  // enough bytes past offset 144 in every format
  for (const char* ext : {".png", ".jpg", ".webp", ".bmp", ".tiff"}) {
    const std::vector<uint8_t> clean = Encode(img, ext);
    ASSERT_GT(clean.size(), 150u) << ext;
    EXPECT_EQ(DecodeImage(clean, std::string("clean") + ext).width, 24) << ext;  // control
    for (const auto& [offset, tag] : {std::pair<size_t, const char*>{128, "DICM"}, {140, "DTED"}}) {
      std::vector<uint8_t> two = clean;
      std::copy(tag, tag + 4, two.begin() + static_cast<std::ptrdiff_t>(offset));
      const std::string name = std::string("two") + ext;
      test::ExpectErrorContaining([&] { DecodeImage(two, name); }, {name.c_str(), "another format's signature"});
    }
  }
}

}  // namespace
}  // namespace glance::vision
