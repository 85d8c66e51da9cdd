#define PCRE2_CODE_UNIT_WIDTH 8
#include "core/text/regex_splitter.h"

#include <pcre2.h>

#include "core/util/error.h"

namespace glance::text {

struct RegexSplitter::Impl {
  pcre2_code* code = nullptr;
  bool jit = false;
  ~Impl() { pcre2_code_free(code); }
};

RegexSplitter::RegexSplitter(const std::string& pattern, const std::string& where)
    : impl_(std::make_unique<Impl>()) {
  int err = 0;
  PCRE2_SIZE err_off = 0;
  impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                              PCRE2_UTF | PCRE2_UCP, &err, &err_off, nullptr);
  if (!impl_->code) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(err, msg, sizeof msg);
    throw Error(where + ": pre-tokenizer regex does not compile at offset " +
                std::to_string(err_off) + ": " + reinterpret_cast<const char*>(msg));
  }
  // JIT makes splitting several times faster; without it (e.g. a build without JIT) the
  // interpreter gives the same pieces.
  impl_->jit = pcre2_jit_compile(impl_->code, PCRE2_JIT_COMPLETE) == 0;
}

RegexSplitter::~RegexSplitter() = default;
RegexSplitter::RegexSplitter(RegexSplitter&&) noexcept = default;
RegexSplitter& RegexSplitter::operator=(RegexSplitter&&) noexcept = default;

RegexSplitter::Cursor::Cursor(const RegexSplitter& splitter, std::string_view text)
    : splitter_(splitter), text_(text),
      match_data_(pcre2_match_data_create_from_pattern(splitter.impl_->code, nullptr)) {
  if (!match_data_) throw Error("tokenizer: out of memory creating regex match data");
}

RegexSplitter::Cursor::~Cursor() { pcre2_match_data_free(static_cast<pcre2_match_data*>(match_data_)); }

bool RegexSplitter::Cursor::Next(std::string_view* piece) {
  if (!pending_.empty()) {
    *piece = pending_;
    pending_ = {};
    return true;
  }
  auto* md = static_cast<pcre2_match_data*>(match_data_);
  const pcre2_code* code = splitter_.impl_->code;
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text_.data());
  while (pos_ < text_.size()) {
    // The caller validated UTF-8, so PCRE2's own check (a full scan per call) is skipped.
    int rc = pcre2_match(code, subject, text_.size(), pos_, PCRE2_NO_UTF_CHECK, md, nullptr);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
      rc = pcre2_match(code, subject, text_.size(), pos_, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, md, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(rc, msg, sizeof msg);
      throw Error(std::string("tokenizer: regex match failed: ") + reinterpret_cast<const char*>(msg));
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    const size_t start = ov[0], end = ov[1];
    if (end == start) {  // empty match: HF drops it; step one character to make progress
      pos_ = start + 1;
      while (pos_ < text_.size() && (static_cast<unsigned char>(text_[pos_]) & 0xC0) == 0x80) ++pos_;
      continue;
    }
    const std::string_view match = text_.substr(start, end - start);
    const size_t gap = gap_start_;
    pos_ = gap_start_ = end;
    if (start > gap) {  // text no alternative matched is a piece of its own ("Isolated")
      pending_ = match;
      *piece = text_.substr(gap, start - gap);
    } else {
      *piece = match;
    }
    return true;
  }
  pos_ = text_.size();
  if (gap_start_ < text_.size()) {
    *piece = text_.substr(gap_start_);
    gap_start_ = text_.size();
    return true;
  }
  return false;
}

void RegexSplitter::SplitInto(std::string_view text, std::vector<std::string_view>& pieces) const {
  Cursor cursor(*this, text);
  std::string_view piece;
  while (cursor.Next(&piece)) pieces.push_back(piece);
}

}  // namespace glance::text
