#pragma once
// UTF-8 helpers shared by the tokenizer and the streaming decoder.
// Decoding follows Rust's String::from_utf8_lossy (what HF tokenizers' decode uses): each
// maximal invalid subpart becomes one U+FFFD, so batch and streaming decodes agree byte for byte.
#include <cstddef>
#include <string>
#include <string_view>

namespace glance::text {

// Byte offset of the first byte that does not start a valid UTF-8 sequence, or npos.
size_t FindInvalidUtf8(std::string_view s);

// True when every byte is < 0x80 (fast path: ASCII is already NFC and needs no ICU).
bool IsAscii(std::string_view s);

// Appends `bytes` to `out` as valid UTF-8, replacing invalid subparts with U+FFFD.
// When `final` is false, an incomplete but so-far-valid sequence at the very end is not
// consumed (the caller keeps it for the next call). Returns the number of bytes consumed.
size_t AppendLossyUtf8(std::string_view bytes, bool final, std::string& out);

// Appends the UTF-8 encoding of code point `cp` (< 0x110000) to `out`.
void AppendCodePoint(char32_t cp, std::string& out);

}  // namespace glance::text
