#include "core/vision/image_header.h"

#include <cstring>

namespace glance::vision {
namespace {

// Bounds-checked readers: every access goes through these, so a truncated or hostile header
// yields "unknown" instead of reading past the buffer.
bool Has(std::span<const uint8_t> b, size_t off, size_t n) { return off <= b.size() && n <= b.size() - off; }
uint32_t Be16(std::span<const uint8_t> b, size_t o) { return (uint32_t{b[o]} << 8) | b[o + 1]; }
uint32_t Be32(std::span<const uint8_t> b, size_t o) { return (Be16(b, o) << 16) | Be16(b, o + 2); }
uint32_t Le16(std::span<const uint8_t> b, size_t o) { return uint32_t{b[o]} | (uint32_t{b[o + 1]} << 8); }
uint32_t Le32(std::span<const uint8_t> b, size_t o) { return Le16(b, o) | (Le16(b, o + 2) << 16); }
uint32_t Le24(std::span<const uint8_t> b, size_t o) { return Le16(b, o) | (uint32_t{b[o + 2]} << 16); }
bool Tag(std::span<const uint8_t> b, size_t o, const char* tag) {
  const size_t n = std::strlen(tag);
  return Has(b, o, n) && std::memcmp(b.data() + o, tag, n) == 0;
}

bool IsJpegSof(uint8_t m) {
  return (m >= 0xC0 && m <= 0xCF) && m != 0xC4 && m != 0xC8 && m != 0xCC;
}

// Walks JPEG segments until SOS. Calls on_segment(marker, payload offset, payload size).
template <typename Fn>
void WalkJpeg(std::span<const uint8_t> b, Fn&& on_segment) {
  size_t o = 2;
  while (Has(b, o, 4)) {
    if (b[o] != 0xFF) return;
    const uint8_t m = b[o + 1];
    if (m == 0xFF) { ++o; continue; }  // fill byte
    if (m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) { o += 2; continue; }
    if (m == 0xDA || m == 0xD9) return;  // start of scan / end of image
    const size_t len = Be16(b, o + 2);
    if (len < 2 || !Has(b, o + 4, len - 2)) return;
    if (!on_segment(m, o + 4, len - 2)) return;
    o += 2 + len;
  }
}

// Walks PNG chunks: on_chunk(type offset, data offset, data size).
template <typename Fn>
void WalkPng(std::span<const uint8_t> b, Fn&& on_chunk) {
  size_t o = 8;
  while (Has(b, o, 8)) {
    const size_t len = Be32(b, o);
    if (!Has(b, o + 8, len)) return;
    if (!on_chunk(o + 4, o + 8, len)) return;
    if (Tag(b, o + 4, "IEND")) return;
    o += 12 + len;
  }
}

// Walks RIFF/WebP chunks after the 12-byte header: on_chunk(fourcc offset, data offset, size).
template <typename Fn>
void WalkWebp(std::span<const uint8_t> b, Fn&& on_chunk) {
  size_t o = 12;
  while (Has(b, o, 8)) {
    const size_t len = Le32(b, o + 4);
    const size_t data = o + 8;
    if (!on_chunk(o, data, Has(b, data, len) ? len : b.size() - data)) return;
    if (!Has(b, data, len)) return;
    o = data + len + (len & 1);
  }
}

// Reads one IFD entry's SHORT/LONG value.
std::optional<uint32_t> IfdValue(std::span<const uint8_t> t, size_t entry, bool le) {
  auto u16 = [&](size_t o) { return le ? Le16(t, o) : Be16(t, o); };
  auto u32 = [&](size_t o) { return le ? Le32(t, o) : Be32(t, o); };
  const uint32_t type = u16(entry + 2);
  if (type == 3) return u16(entry + 8);
  if (type == 4) return u32(entry + 8);
  return std::nullopt;
}

// Looks up `tag` in IFD0 of a TIFF structure.
std::optional<uint32_t> TiffTag(std::span<const uint8_t> t, uint32_t tag) {
  if (!Has(t, 0, 8)) return std::nullopt;
  bool le;
  if (Tag(t, 0, "II")) le = true;
  else if (Tag(t, 0, "MM")) le = false;
  else return std::nullopt;
  auto u16 = [&](size_t o) { return le ? Le16(t, o) : Be16(t, o); };
  auto u32 = [&](size_t o) { return le ? Le32(t, o) : Be32(t, o); };
  if (u16(2) != 42) return std::nullopt;
  const size_t ifd = u32(4);
  if (!Has(t, ifd, 2)) return std::nullopt;
  const size_t n = u16(ifd);
  for (size_t i = 0; i < n; ++i) {
    const size_t e = ifd + 2 + 12 * i;
    if (!Has(t, e, 12)) return std::nullopt;
    if (u16(e) == tag) return IfdValue(t, e, le);
  }
  return std::nullopt;
}

}  // namespace

const char* ImageFormatName(ImageFormat f) {
  switch (f) {
    case ImageFormat::kPng: return "PNG";
    case ImageFormat::kJpeg: return "JPEG";
    case ImageFormat::kWebp: return "WebP";
    case ImageFormat::kBmp: return "BMP";
    case ImageFormat::kTiff: return "TIFF";
    case ImageFormat::kUnknown: break;
  }
  return "unknown";
}

ImageFormat DetectImageFormat(std::span<const uint8_t> b) {
  static const uint8_t kPngSig[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  if (Has(b, 0, 8) && std::memcmp(b.data(), kPngSig, 8) == 0) return ImageFormat::kPng;
  if (Has(b, 0, 3) && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return ImageFormat::kJpeg;
  if (Tag(b, 0, "RIFF") && Tag(b, 8, "WEBP")) return ImageFormat::kWebp;
  if (Tag(b, 0, "BM") && Has(b, 0, 26)) return ImageFormat::kBmp;
  if (Has(b, 0, 4) && ((Tag(b, 0, "II") && b[2] == 42 && b[3] == 0) ||
                       (Tag(b, 0, "MM") && b[2] == 0 && b[3] == 42))) {
    return ImageFormat::kTiff;
  }
  return ImageFormat::kUnknown;
}

std::optional<ImageDims> ReadImageDims(std::span<const uint8_t> b, ImageFormat format) {
  ImageDims d;
  switch (format) {
    case ImageFormat::kPng:
      if (!Has(b, 8, 16) || !Tag(b, 12, "IHDR")) return std::nullopt;
      d.width = Be32(b, 16);
      d.height = Be32(b, 20);
      return d;
    case ImageFormat::kJpeg: {
      bool found = false;
      WalkJpeg(b, [&](uint8_t m, size_t off, size_t size) {
        if (IsJpegSof(m) && size >= 5) {
          d.height = Be16(b, off + 1);
          d.width = Be16(b, off + 3);
          found = true;
          return false;
        }
        return true;
      });
      if (found) return d;
      return std::nullopt;
    }
    case ImageFormat::kWebp: {
      if (Tag(b, 12, "VP8 ") && Has(b, 20, 10) && b[23] == 0x9D && b[24] == 0x01 && b[25] == 0x2A) {
        d.width = Le16(b, 26) & 0x3FFF;
        d.height = Le16(b, 28) & 0x3FFF;
        return d;
      }
      if (Tag(b, 12, "VP8L") && Has(b, 20, 5) && b[20] == 0x2F) {
        const uint32_t bits = Le32(b, 21);
        d.width = (bits & 0x3FFF) + 1;
        d.height = ((bits >> 14) & 0x3FFF) + 1;
        return d;
      }
      if (Tag(b, 12, "VP8X") && Has(b, 20, 10)) {
        d.width = int64_t{Le24(b, 24)} + 1;
        d.height = int64_t{Le24(b, 27)} + 1;
        return d;
      }
      return std::nullopt;
    }
    case ImageFormat::kBmp: {
      const uint32_t header = Le32(b, 14);
      if (header == 12) {
        d.width = Le16(b, 18);
        d.height = Le16(b, 20);
      } else {
        d.width = static_cast<int32_t>(Le32(b, 18));
        const int32_t h = static_cast<int32_t>(Le32(b, 22));  // negative = top-down rows
        d.height = h < 0 ? -int64_t{h} : int64_t{h};
      }
      return d;
    }
    case ImageFormat::kTiff: {
      const auto w = TiffTag(b, 256), h = TiffTag(b, 257);
      if (!w || !h) return std::nullopt;
      d.width = *w;
      d.height = *h;
      return d;
    }
    case ImageFormat::kUnknown: break;
  }
  return std::nullopt;
}

int ParseTiffOrientation(std::span<const uint8_t> tiff) {
  if (Tag(tiff, 0, "Exif") && Has(tiff, 0, 6)) tiff = tiff.subspan(6);
  const auto v = TiffTag(tiff, 0x0112);
  return (v && *v >= 1 && *v <= 8) ? static_cast<int>(*v) : 1;
}

int ReadExifOrientation(std::span<const uint8_t> b, ImageFormat format) {
  int orientation = 1;
  switch (format) {
    case ImageFormat::kJpeg:
      WalkJpeg(b, [&](uint8_t m, size_t off, size_t size) {
        if (m == 0xE1 && size > 6 && Tag(b, off, "Exif")) {
          orientation = ParseTiffOrientation(b.subspan(off + 6, size - 6));
          return false;
        }
        return true;
      });
      break;
    case ImageFormat::kPng:
      WalkPng(b, [&](size_t type, size_t data, size_t size) {
        if (Tag(b, type, "eXIf")) {
          orientation = ParseTiffOrientation(b.subspan(data, size));
          return false;
        }
        return true;
      });
      break;
    case ImageFormat::kWebp:
      WalkWebp(b, [&](size_t fourcc, size_t data, size_t size) {
        if (Tag(b, fourcc, "EXIF")) {
          orientation = ParseTiffOrientation(b.subspan(data, size));
          return false;
        }
        return true;
      });
      break;
    default:
      // BMP has no EXIF; TIFF orientation is left to the decoder (rare in practice).
      break;
  }
  return orientation;
}

}  // namespace glance::vision
