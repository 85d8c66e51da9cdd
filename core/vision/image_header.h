#pragma once
// Looks at the first bytes of an encoded image without decoding it: which format it is, how big
// it claims to be (so huge images are refused before a decoder allocates for them), and the EXIF
// orientation (HF's load_image applies PIL.ImageOps.exif_transpose; OpenCV only does so for
// IMREAD_COLOR, which drops alpha, so Glance applies it itself).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace glance::vision {

enum class ImageFormat : uint8_t { kUnknown, kPng, kJpeg, kWebp, kBmp, kTiff };

const char* ImageFormatName(ImageFormat f);  // "PNG", ...

ImageFormat DetectImageFormat(std::span<const uint8_t> bytes);

struct ImageDims {
  int64_t width = 0;
  int64_t height = 0;
};

// Dimensions from the header, or nullopt when the header is too short/odd to tell (the decoder
// then decides). Never reads past `bytes`.
std::optional<ImageDims> ReadImageDims(std::span<const uint8_t> bytes, ImageFormat format);

// EXIF orientation 1..8 (1 = as stored) from a JPEG APP1 "Exif" segment, a PNG eXIf chunk or a
// WebP EXIF chunk; 1 when absent or unreadable.
int ReadExifOrientation(std::span<const uint8_t> bytes, ImageFormat format);

// Orientation tag (0x0112) from a TIFF-structured EXIF payload ("II*\0" / "MM\0*" ...); 1 if absent.
int ParseTiffOrientation(std::span<const uint8_t> tiff);

}  // namespace glance::vision
