#include "core/text/utf8.h"

namespace glance::text {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid sequence starting at s[i], 0 if the bytes there are invalid, or -k when
// only the first k bytes are present (valid so far but cut off by the end of `s`).
// For invalid input, *bad_len is set to the length of the maximal invalid subpart (>= 1).
int SequenceLength(std::string_view s, size_t i, size_t* bad_len) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  *bad_len = 1;
  if (b0 < 0x80) return 1;
  int need = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // valid range of the second byte (Unicode Table 3-7)
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;  // <= U+10FFFF
  } else {
    return 0;
  }
  for (int k = 1; k < need; ++k) {
    if (i + static_cast<size_t>(k) >= s.size()) return -k;
    const auto b = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
    const unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
    if (b < l || b > h) {
      *bad_len = static_cast<size_t>(k);
      return 0;
    }
  }
  return need;
}

}  // namespace

size_t FindInvalidUtf8(std::string_view s) {
  size_t i = 0, bad = 0;
  while (i < s.size()) {
    const int n = SequenceLength(s, i, &bad);
    if (n <= 0) return i;
    i += static_cast<size_t>(n);
  }
  return std::string_view::npos;
}

bool IsAscii(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

size_t AppendLossyUtf8(std::string_view bytes, bool final, std::string& out) {
  size_t i = 0, bad = 0;
  while (i < bytes.size()) {
    const int n = SequenceLength(bytes, i, &bad);
    if (n > 0) {
      out.append(bytes.substr(i, static_cast<size_t>(n)));
      i += static_cast<size_t>(n);
    } else if (n < 0) {  // truncated at the end
      if (!final) return i;
      out.append(kReplacement);
      return bytes.size();
    } else {
      out.append(kReplacement);
      i += bad;
    }
  }
  return i;
}

void AppendCodePoint(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace glance::text
