#include "core/vision/image_decode.h"

#include <algorithm>
#include <cstring>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "core/util/error.h"
#include "core/vision/image_header.h"

namespace glance::vision {
namespace {

constexpr const char* kFormats = "(PNG, JPEG, WebP, BMP, TIFF)";

std::string NotAnImage(const std::string& source, const std::string& why) {
  return source + " is not an image Glance can read " + kFormats + ": " + why;
}

void CheckLimits(int64_t w, int64_t h, const std::string& source) {
  if (w <= 0 || h <= 0) {
    throw Error(NotAnImage(source, "its header says it is " + std::to_string(w) + "x" +
                                       std::to_string(h) + " pixels"));
  }
  if (w > kMaxImageSide || h > kMaxImageSide || w * h > kMaxImagePixels) {
    throw Error(source + " is " + std::to_string(w) + "x" + std::to_string(h) +
                " pixels, larger than Glance accepts (at most " +
                std::to_string(kMaxImagePixels / 1'000'000) + " megapixels and " +
                std::to_string(kMaxImageSide) + " pixels per side); scale it down first");
  }
}

// Any depth -> 8-bit, keeping channels. PIL reduces 16-bit PNG to 8 bits by >> 8; 16-bit TIFF the same.
cv::Mat To8Bit(const cv::Mat& m, const std::string& source) {
  switch (m.depth()) {
    case CV_8U: return m;
    case CV_16U: {
      cv::Mat out(m.rows, m.cols, CV_MAKETYPE(CV_8U, m.channels()));
      const int n = m.cols * m.channels();
      for (int y = 0; y < m.rows; ++y) {
        const uint16_t* s = m.ptr<uint16_t>(y);
        uint8_t* d = out.ptr<uint8_t>(y);
        for (int i = 0; i < n; ++i) d[i] = static_cast<uint8_t>(s[i] >> 8);
      }
      return out;
    }
    case CV_32F:
    case CV_64F: {
      cv::Mat out;
      m.convertTo(out, CV_8U, 255.0);  // saturating
      return out;
    }
    default:
      throw Error(NotAnImage(source, "unsupported sample type (depth " + std::to_string(m.depth()) + ")"));
  }
}

// PIL's Image.alpha_composite(white, rgba) for an opaque white background, in its own integer
// arithmetic (libImaging/AlphaComposite.c, PRECISION_BITS = 7), so results match to the LSB.
uint8_t OverWhite(uint32_t c, uint32_t a) {
  const uint32_t coef1 = a * 128u;
  const uint32_t coef2 = 255u * 128u - coef1;
  const uint32_t tmp = c * coef1 + 255u * coef2 + (0x80u << 7);
  return static_cast<uint8_t>(((((tmp >> 8) + tmp) >> 8)) >> 7);
}

// PIL.ImageOps.exif_transpose for orientation 2..8.
cv::Mat ApplyOrientation(const cv::Mat& m, int orientation) {
  cv::Mat out;
  switch (orientation) {
    case 2: cv::flip(m, out, 1); return out;
    case 3: cv::rotate(m, out, cv::ROTATE_180); return out;
    case 4: cv::flip(m, out, 0); return out;
    case 5: cv::transpose(m, out); return out;
    case 6: cv::rotate(m, out, cv::ROTATE_90_CLOCKWISE); return out;
    case 7: {
      cv::Mat t;
      cv::transpose(m, t);
      cv::rotate(t, out, cv::ROTATE_180);
      return out;
    }
    case 8: cv::rotate(m, out, cv::ROTATE_90_COUNTERCLOCKWISE); return out;
    default: return m;
  }
}

// cv::imdecode does not take a format: it hands the bytes to the first of its decoders whose
// signature matches (opencv modules/imgcodecs/src/loadsave.cpp, findDecoder). Every decoder
// Glance means to use, and every other one but two, looks at the first bytes, which the format
// detected above already owns. The two that look further in are DICOM (GDCM: "DICM" at byte
// 128) and GDAL's DTED ("DTED" at byte 140): when the detected format's own decoder turns the
// bytes down, one of them would get a file Glance took for a PNG, JPEG, WebP, BMP or TIFF —
// with a size the header walk never saw, through libraries that abort on bad input (a fuzzed
// "WebP" with "DICM" at 128 hit an assert in GDCM). Real images of the five formats carry these
// four bytes at those offsets by chance only (one in 2^32), so such a file is refused.
void RefuseOtherDecoderSignatures(std::span<const uint8_t> bytes, ImageFormat format, const std::string& source) {
  const auto at = [&](size_t offset, const char* tag) {
    return bytes.size() >= offset + 4 && std::memcmp(bytes.data() + offset, tag, 4) == 0;
  };
  if (at(128, "DICM") || at(140, "DTED"))
    throw Error(NotAnImage(source, std::string("it starts as a ") + ImageFormatName(format) +
                                       " but also carries another format's signature (DICOM or DTED), which "
                                       "the decoder could pick instead"));
}

}  // namespace

RgbImage DecodeImage(std::span<const uint8_t> bytes, const std::string& source) {
  if (bytes.empty()) throw Error(NotAnImage(source, "the file is empty"));
  const ImageFormat format = DetectImageFormat(bytes);
  if (format == ImageFormat::kUnknown) {
    throw Error(NotAnImage(source, "its contents are not in any of these formats"));
  }
  // Refuse oversized images before the decoder allocates for them. The decoders allocate for
  // the size in the header, and OpenCV's own cap (OPENCV_IO_MAX_IMAGE_PIXELS, 1 gigapixel) is
  // read once when its library loads, too late for a program to lower it. So the decode only
  // runs when the header walk (which accepts every header form the decoders do: JPEG junk and
  // fill bytes, every TIFF integer type, tiles) has found the size: a header it cannot read is
  // refused rather than handed to a decoder unbounded.
  const auto dims = ReadImageDims(bytes, format);
  if (!dims)
    throw Error(NotAnImage(source, std::string("its ") + ImageFormatName(format) +
                                       " header does not say how large it is (damaged or truncated?)"));
  CheckLimits(dims->width, dims->height, source);
  RefuseOtherDecoderSignatures(bytes, format, source);

  cv::Mat decoded;
  try {
    // imdecode needs a non-const Mat header; it does not write to the buffer.
    const cv::Mat buf(1, static_cast<int>(std::min<size_t>(bytes.size(), INT32_MAX)), CV_8U,
                      const_cast<uint8_t*>(bytes.data()));
    // UNCHANGED keeps alpha (IMREAD_COLOR would drop it) but skips EXIF: applied below.
    decoded = cv::imdecode(buf, cv::IMREAD_UNCHANGED);
  } catch (const cv::Exception& e) {
    throw Error(NotAnImage(source, std::string("the ") + ImageFormatName(format) +
                                       " decoder failed (" + e.what() + ")"));
  }
  if (decoded.empty()) {
    throw Error(NotAnImage(source, std::string("the ") + ImageFormatName(format) +
                                       " data is damaged or truncated"));
  }
  CheckLimits(decoded.cols, decoded.rows, source);

  cv::Mat m8 = To8Bit(decoded, source);
  cv::Mat rgb;
  switch (m8.channels()) {
    case 1: cv::cvtColor(m8, rgb, cv::COLOR_GRAY2RGB); break;
    case 3: cv::cvtColor(m8, rgb, cv::COLOR_BGR2RGB); break;
    case 4: {
      rgb.create(m8.rows, m8.cols, CV_8UC3);
      for (int y = 0; y < m8.rows; ++y) {
        const uint8_t* s = m8.ptr<uint8_t>(y);
        uint8_t* d = rgb.ptr<uint8_t>(y);
        for (int x = 0; x < m8.cols; ++x, s += 4, d += 3) {
          d[0] = OverWhite(s[2], s[3]);  // BGRA -> RGB
          d[1] = OverWhite(s[1], s[3]);
          d[2] = OverWhite(s[0], s[3]);
        }
      }
      break;
    }
    default:
      throw Error(NotAnImage(source, std::to_string(m8.channels()) + "-channel images are not supported"));
  }
  rgb = ApplyOrientation(rgb, ReadExifOrientation(bytes, format));
  if (!rgb.isContinuous()) rgb = rgb.clone();

  RgbImage out;
  out.height = rgb.rows;
  out.width = rgb.cols;
  out.pixels.assign(rgb.data, rgb.data + size_t(rgb.rows) * size_t(rgb.cols) * 3);
  return out;
}

RgbImage RgbImageFromBuffer(int height, int width, const uint8_t* rgb, int64_t stride) {
  if (height <= 0 || width <= 0 || rgb == nullptr) {
    throw Error("image buffer is empty (" + std::to_string(width) + "x" + std::to_string(height) + ")");
  }
  CheckLimits(width, height, "the image buffer");
  const size_t row = size_t(width) * 3;
  if (stride == 0) stride = static_cast<int64_t>(row);
  if (stride < static_cast<int64_t>(row)) throw Error("image buffer stride is smaller than width x 3 bytes");
  RgbImage out;
  out.height = height;
  out.width = width;
  out.pixels.resize(row * size_t(height));
  for (int y = 0; y < height; ++y) std::memcpy(out.pixels.data() + row * size_t(y), rgb + stride * y, row);
  return out;
}

}  // namespace glance::vision
