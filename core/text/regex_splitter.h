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

  // Walks the pieces of one text in order without materialising them all (long inputs).
  class Cursor {
   public:
    Cursor(const RegexSplitter& splitter, std::string_view text);  // text: valid UTF-8
    ~Cursor();
    Cursor(const Cursor&) = delete;
    Cursor& operator=(const Cursor&) = delete;
    // Sets *piece to the next piece; false at the end.
    bool Next(std::string_view* piece);

   private:
    const RegexSplitter& splitter_;
    std::string_view text_;
    void* match_data_;  // pcre2_match_data*
    size_t pos_ = 0, gap_start_ = 0;
    std::string_view pending_;  // a match found while a gap before it was returned first
  };

  // Appends the pieces of `text`, in order, to `pieces`. `text` must be valid UTF-8.
  void SplitInto(std::string_view text, std::vector<std::string_view>& pieces) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace glance::text
