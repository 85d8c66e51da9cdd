#include "core/text/byte_level.h"

#include "core/text/utf8.h"

namespace glance::text {

ByteLevelMap::ByteLevelMap() {
  char_to_byte_.fill(-1);
  auto keeps_itself = [](int b) {
    return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
  };
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) {
    const char32_t cp = keeps_itself(b) ? static_cast<char32_t>(b) : next++;
    AppendCodePoint(cp, byte_to_char_[static_cast<size_t>(b)]);
    char_to_byte_[cp] = static_cast<int16_t>(b);
  }
}

bool ByteLevelMap::ToBytes(std::string_view token, std::string& out) const {
  size_t i = 0;
  while (i < token.size()) {
    const auto b0 = static_cast<unsigned char>(token[i]);
    char32_t cp;
    if (b0 < 0x80) {
      cp = b0;
      i += 1;
    } else if ((b0 & 0xE0) == 0xC0 && i + 1 < token.size()) {
      cp = static_cast<char32_t>(((b0 & 0x1F) << 6) | (static_cast<unsigned char>(token[i + 1]) & 0x3F));
      i += 2;
    } else {
      return false;  // every mapped character is below U+0800
    }
    if (cp >= char_to_byte_.size() || char_to_byte_[cp] < 0) return false;
    out.push_back(static_cast<char>(char_to_byte_[cp]));
  }
  return true;
}

const ByteLevelMap& GetByteLevelMap() {
  static const ByteLevelMap map;
  return map;
}

}  // namespace glance::text
