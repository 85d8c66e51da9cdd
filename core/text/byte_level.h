#pragma once
// GPT-2's reversible byte <-> unicode map used by byte-level BPE (HF tokenizers
// pre_tokenizers/byte_level.rs `bytes_char`): printable Latin-1 bytes map to themselves, the
// other 68 bytes to U+0100.. in order, so every byte has a visible one-character token.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace glance::text {

class ByteLevelMap {
 public:
  ByteLevelMap();
  // The UTF-8 text of the character that stands for `byte` (e.g. 0x20 -> "Ġ").
  const std::string& CharFor(uint8_t byte) const { return byte_to_char_[byte]; }
  // Maps a byte-level token string back to raw bytes. Returns false (leaving `out` partly
  // written) when the token holds a character outside the map, e.g. a non-byte-level token.
  bool ToBytes(std::string_view token, std::string& out) const;

 private:
  std::array<std::string, 256> byte_to_char_;
  std::array<int16_t, 324> char_to_byte_;  // code point (< 324) -> byte, -1 if unmapped
};

const ByteLevelMap& GetByteLevelMap();

}  // namespace glance::text
