#pragma once
// Turns generated token ids into text as they arrive. A token may end in the middle of a UTF-8
// character (byte-level BPE splits emoji and CJK across tokens), so Push() returns only complete
// characters and holds back an incomplete tail until the next token completes it. The
// concatenation of all Push() results and Flush() equals Tokenizer::Decode of the same ids.
// Thread contract: one decoder per generation stream; not thread-safe.
#include <cstdint>
#include <string>

#include "core/text/tokenizer.h"

namespace glance {

class StreamDecoder {
 public:
  // The tokenizer must outlive the decoder. With skip_special, special tokens produce no text.
  explicit StreamDecoder(const Tokenizer& tokenizer, bool skip_special = false)
      : tokenizer_(&tokenizer), skip_special_(skip_special) {}

  // Text completed by this token (possibly empty). Throws glance::Error for an unknown id.
  std::string Push(int32_t id);
  // Whatever is held back, with an incomplete tail replaced by U+FFFD; resets the decoder.
  std::string Flush();

 private:
  const Tokenizer* tokenizer_;
  bool skip_special_;
  std::string pending_;  // bytes of an incomplete UTF-8 sequence (at most 3)
};

}  // namespace glance
