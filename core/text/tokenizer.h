#pragma once
// Byte-level BPE tokenizer read from a Hugging Face tokenizer.json (qwen35.md §5.1).
// Pipeline (HF tokenizers): added tokens matched verbatim in the raw text (leftmost, longest)
// -> NFC normaliser -> Split pre-tokenizer (the file's regex, "Isolated") -> GPT-2 byte map ->
// BPE by merge rank. No BOS/EOS. Decode is HF's ByteLevel decoder with lossy UTF-8.
// Thread contract: immutable after FromFile except for an internal word cache guarded by a
// mutex, so Encode/Decode may be called from several threads at once.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace glance {

class Tokenizer {
 public:
  // Reads tokenizer.json. Throws glance::Error naming the file and field for anything it does
  // not support: a model type other than BPE, a missing Split regex, unknown normaliser, etc.
  static Tokenizer FromFile(const std::string& tokenizer_json_path);
  // Same, from the JSON text; `source_name` is used in error messages.
  static Tokenizer FromJsonText(std::string_view json_text, const std::string& source_name);

  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;
  ~Tokenizer();

  // UTF-8 text -> ids. Throws glance::Error if `text` is not valid UTF-8 (names the offset).
  std::vector<int32_t> Encode(std::string_view text) const;
  // ids -> text; invalid UTF-8 produced by partial byte tokens becomes U+FFFD (as HF does).
  // Throws glance::Error for an id outside [0, size()).
  std::string Decode(const std::vector<int32_t>& ids, bool skip_special = false) const;
  // The pre-tokenizer's pieces of `text` (NFC, then the Split regex) in the byte-level
  // alphabet, treating added tokens as plain text — HF's pre_tokenize_str, for diagnostics.
  std::vector<std::string> PreTokenize(std::string_view text) const;
  // The raw bytes one token stands for (byte-level decoded; an added token's content).
  // May be an incomplete UTF-8 sequence. Throws for an unknown id.
  std::string TokenBytes(int32_t id) const;
  // The token's string as stored in the vocabulary (byte-level alphabet, e.g. "Ġworld").
  std::string TokenText(int32_t id) const;
  // Id of a vocabulary string or added token, -1 if absent.
  int32_t TokenId(std::string_view token) const;
  // Vocabulary size including added tokens (highest id + 1).
  size_t size() const;
  // True for added tokens marked "special" (skipped by Decode(..., skip_special=true)).
  bool IsSpecial(int32_t id) const;

  struct Impl;  // defined in tokenizer_impl.h; public only so the loader's helpers can fill it

 private:
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace glance
