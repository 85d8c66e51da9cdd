#pragma once
// The tokenizer's Split pre-tokenizer (HF tokenizers pre_tokenizers/split.rs, behaviour
// "Isolated"): every regex match becomes its own piece and so does every gap between matches.
// The pattern is tokenizer.json's Oniguruma regex; the constructs Qwen uses (\p{L}, \p{M},
// \p{N}, \s, (?i:...), (?!...)) mean the same in PCRE2 with UTF + UCP.
// Thread contract: immutable after construction; Split() may run on many threads at once.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace glance::text {

class RegexSplitter {
 public:
  // Throws glance::Error naming `where` and the PCRE2 message if the pattern does not compile.
  RegexSplitter(const std::string& pattern, const std::string& where);
  ~RegexSplitter();
  RegexSplitter(RegexSplitter&&) noexcept;
  RegexSplitter& operator=(RegexSplitter&&) noexcept;

  // Appends the pieces of `text`, in order, to `pieces`. `text` must be valid UTF-8.
  void SplitInto(std::string_view text, std::vector<std::string_view>& pieces) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace glance::text
