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

// Walks JPEG segments until SOS the way libjpeg's reader does (jdmarker.c next_marker), so a
// header the decoder accepts cannot hide from this walk: bytes that are not 0xFF before a marker
// are discarded (libjpeg warns "extraneous bytes before marker" and goes on), 0xFF fill bytes are
// skipped, and a stuffed FF 00 pair is discarded. Calls on_segment(marker, payload offset,
// payload size); the size is clipped to the end of the buffer (libjpeg reads a truncated
// segment's leading fields before it notices the end), so a caller must check what it reads.
template <typename Fn>
void WalkJpeg(std::span<const uint8_t> b, Fn&& on_segment) {
  size_t o = 2;
  while (o < b.size()) {
    while (o < b.size() && b[o] != 0xFF) ++o;   // junk before a marker
    while (o < b.size() && b[o] == 0xFF) ++o;   // fill bytes; o is now at the marker code
    if (o >= b.size()) return;
    const uint8_t m = b[o++];
    if (m == 0x00) continue;  // stuffed FF 00: not a marker
    if (m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7)) continue;  // SOI, TEM, RSTn: no length
    if (m == 0xDA || m == 0xD9) return;  // start of scan / end of image
    if (!Has(b, o, 2)) return;
    const size_t len = Be16(b, o);
    if (len < 2) return;
    const size_t payload = o + 2;
    const size_t size = Has(b, payload, len - 2) ? len - 2 : b.size() - payload;
    if (!on_segment(m, payload, size)) return;
    o = payload + size;
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

// Reads one IFD entry's value as an unsigned integer, for every integer field type libtiff's
// TIFFReadDirEntryLong accepts for a count-1 tag (BYTE, SBYTE, SHORT, SSHORT, LONG, SLONG, and
// the BigTIFF LONG8/SLONG8 whose value sits behind an offset). A negative signed value comes
// back as 0 (libtiff refuses it too), one too large for 32 bits as UINT32_MAX; nullopt when
// the type is not an integer, the count is not 1, or the value lies outside the buffer.
std::optional<uint32_t> IfdValue(std::span<const uint8_t> t, size_t entry, bool le) {
  auto u16 = [&](size_t o) { return le ? Le16(t, o) : Be16(t, o); };
  auto u32 = [&](size_t o) { return le ? Le32(t, o) : Be32(t, o); };
  const uint32_t type = u16(entry + 2);
  if (u32(entry + 4) != 1) return std::nullopt;
  const size_t v = entry + 8;
  switch (type) {
    case 1: return t[v];                                                   // BYTE
    case 6: return static_cast<int8_t>(t[v]) < 0 ? 0u : t[v];             // SBYTE
    case 3: return u16(v);                                                 // SHORT
    case 8: return static_cast<int16_t>(u16(v)) < 0 ? 0u : u16(v);        // SSHORT
    case 4: return u32(v);                                                 // LONG
    case 9: return static_cast<int32_t>(u32(v)) < 0 ? 0u : u32(v);        // SLONG
    case 16: case 17: {                                                    // LONG8, SLONG8
      const size_t at = u32(v);
      if (!Has(t, at, 8)) return std::nullopt;
      const uint64_t hi = le ? u32(at + 4) : u32(at), lo = le ? u32(at) : u32(at + 4);
      if (type == 17 && (hi >> 31)) return 0u;
      return hi ? UINT32_MAX : static_cast<uint32_t>(lo);
    }
    default: return std::nullopt;
  }
}

// Looks up `tag` in IFD0 of a TIFF structure (the page decoders read). A tag listed twice
// yields the larger value, so a duplicate cannot hide a size from the limit check.
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
  std::optional<uint32_t> found;
  for (size_t i = 0; i < n; ++i) {
    const size_t e = ifd + 2 + 12 * i;
    if (!Has(t, e, 12)) break;
    if (u16(e) != tag) continue;
    const auto v = IfdValue(t, e, le);
    if (v && (!found || *v > *found)) found = v;
  }
  return found;
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
      // A tiled page makes the decoder allocate one whole tile (TileWidth x TileLength, tags
      // 322/323) whatever the image size, so a tile larger than the image counts instead.
      const auto tw = TiffTag(b, 322), th = TiffTag(b, 323);
      // In uint64_t: two 32-bit sides multiply past int64_t's range ((2^32-1)^2 < 2^64).
      if (tw && th && uint64_t{*tw} * uint64_t{*th} > uint64_t{*w} * uint64_t{*h}) {
        d.width = *tw;
        d.height = *th;
      }
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
