#pragma once
// Private state of glance::Tokenizer, shared by tokenizer_load.cpp (reading tokenizer.json)
// and tokenizer.cpp (encode/decode). Not part of the public API.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/text/bpe.h"
#include "core/text/regex_splitter.h"
#include "core/text/tokenizer.h"

namespace glance {

// Lets unordered_map<std::string, ...> be searched with a string_view without a copy.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using StringToId = std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>>;

struct Tokenizer::Impl {
  enum class Kind : uint8_t { kHole, kVocab, kAdded, kSpecial };

  std::string source;                  // path, for error messages
  std::vector<std::string> id_to_text;  // [size] vocab string or added content
  std::vector<Kind> kind;               // [size]
  StringToId vocab;                     // byte-level vocab string -> id
  StringToId added;                     // added-token content -> id
  // Added tokens by first byte, longest first, so a scan finds the leftmost-longest match.
  std::array<std::vector<int32_t>, 256> added_by_first_byte;

  bool nfc = false;
  bool ignore_merges = false;  // HF BPE option: a word already in the vocab skips merging
  std::optional<text::RegexSplitter> splitter;
  text::BpeModel bpe;

  // Appends the ids of text that contains no added token (normalise, split, BPE).
  void EncodeOrdinary(std::string_view text, std::vector<int32_t>& out) const;
  int32_t AddedTokenAt(std::string_view text, size_t pos) const;  // id or -1
  void CheckId(int32_t id) const;
};

}  // namespace glance
