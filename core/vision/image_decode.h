#pragma once
// Encoded bytes -> RgbImage, the way HF's load_image + convert_rgb sees them (qwen35.md §4 step 1):
// PNG, JPEG, WebP, BMP, TIFF through OpenCV's imdecode; EXIF orientation applied
// (PIL.ImageOps.exif_transpose); alpha composited over white; grey expanded to RGB; 16-bit
// samples reduced to 8 bits.
//
// Limits are checked from the header before the decoder allocates anything: an image larger than
// kMaxImagePixels or with a side above kMaxImageSide is refused with a message naming the limit.
#include <cstdint>
#include <span>
#include <string>

#include "core/vision/rgb_image.h"

namespace glance::vision {

inline constexpr int64_t kMaxImagePixels = 100'000'000;  // 100 megapixels
inline constexpr int64_t kMaxImageSide = 65'500;         // also JPEG's own limit

// `source` names the input in messages (a path, "clipboard", ...). Throws glance::Error for
// anything that is not a readable image in one of the five formats, or that is too large.
RgbImage DecodeImage(std::span<const uint8_t> bytes, const std::string& source);

// Same from 8-bit interleaved RGB pixels handed over by a caller (e.g. the GUI's QImage).
// `stride` is the byte distance between rows (0 = width·3).
RgbImage RgbImageFromBuffer(int height, int width, const uint8_t* rgb, int64_t stride = 0);

}  // namespace glance::vision
