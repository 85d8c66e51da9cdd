// Encode / decode for glance::Tokenizer (loading is in tokenizer_load.cpp).
#include "core/text/tokenizer.h"

#include <cstring>
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include "core/text/byte_level.h"
#include "core/text/tokenizer_impl.h"
#include "core/text/utf8.h"
#include "core/util/error.h"

namespace glance {
namespace {

// NFC via ICU (qwen35.md §5.1 normaliser). ASCII is NFC already and skips ICU.
std::string Nfc(std::string_view s) {
  if (text::IsAscii(s)) return std::string(s);
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  if (U_FAILURE(status)) throw Error(std::string("ICU NFC normaliser unavailable: ") + u_errorName(status));
  const icu::UnicodeString in = icu::UnicodeString::fromUTF8(icu::StringPiece(s.data(), static_cast<int32_t>(s.size())));
  if (nfc->quickCheck(in, status) == UNORM_YES && U_SUCCESS(status)) return std::string(s);
  status = U_ZERO_ERROR;
  const icu::UnicodeString out = nfc->normalize(in, status);
  if (U_FAILURE(status)) throw Error(std::string("ICU NFC normalisation failed: ") + u_errorName(status));
  std::string result;
  out.toUTF8String(result);
  return result;
}

}  // namespace

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

int32_t Tokenizer::Impl::AddedTokenAt(std::string_view text, size_t pos) const {
  for (int32_t id : added_by_first_byte[static_cast<unsigned char>(text[pos])]) {
    const std::string& c = id_to_text[static_cast<size_t>(id)];
    if (c.size() <= text.size() - pos && std::memcmp(text.data() + pos, c.data(), c.size()) == 0)
      return id;
  }
  return -1;
}

void Tokenizer::Impl::EncodeOrdinary(std::string_view text, std::vector<int32_t>& out) const {
  if (text.empty()) return;
  const std::string normalized = nfc ? Nfc(text) : std::string(text);
  text::RegexSplitter::Cursor cursor(*splitter, normalized);
  const auto& map = text::GetByteLevelMap();
  std::string byte_level;
  std::string_view piece;
  while (cursor.Next(&piece)) {
    if (ignore_merges) {
      byte_level.clear();
      for (char c : piece) byte_level += map.CharFor(static_cast<uint8_t>(c));
      auto it = vocab.find(byte_level);
      if (it != vocab.end()) {
        out.push_back(it->second);
        continue;
      }
    }
    bpe.Encode(piece, out);
  }
}

void Tokenizer::Impl::CheckId(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= kind.size() || kind[static_cast<size_t>(id)] == Kind::kHole)
    throw Error("token id " + std::to_string(id) + " is not in the vocabulary of " + source +
                " (size " + std::to_string(kind.size()) + ")");
}

std::vector<int32_t> Tokenizer::Encode(std::string_view text) const {
  const size_t bad = text::FindInvalidUtf8(text);
  if (bad != std::string_view::npos)
    throw Error("text to tokenize is not valid UTF-8 (bad byte 0x" +
                [&] {
                  char buf[3];
                  std::snprintf(buf, sizeof buf, "%02X", static_cast<unsigned char>(text[bad]));
                  return std::string(buf);
                }() +
                " at byte offset " + std::to_string(bad) + ")");
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 3 + 4);
  size_t segment_start = 0;
  for (size_t pos = 0; pos < text.size(); ++pos) {
    if (impl_->added_by_first_byte[static_cast<unsigned char>(text[pos])].empty()) continue;
    const int32_t id = impl_->AddedTokenAt(text, pos);
    if (id < 0) continue;
    impl_->EncodeOrdinary(text.substr(segment_start, pos - segment_start), ids);
    ids.push_back(id);
    pos += impl_->id_to_text[static_cast<size_t>(id)].size() - 1;
    segment_start = pos + 1;
  }
  impl_->EncodeOrdinary(text.substr(segment_start), ids);
  return ids;
}

std::vector<std::string> Tokenizer::PreTokenize(std::string_view text) const {
  if (text::FindInvalidUtf8(text) != std::string_view::npos)
    throw Error("text to pre-tokenize is not valid UTF-8");
  const std::string normalized = impl_->nfc ? Nfc(text) : std::string(text);
  std::vector<std::string_view> pieces;
  impl_->splitter->SplitInto(normalized, pieces);
  const auto& map = text::GetByteLevelMap();
  std::vector<std::string> out;
  for (std::string_view piece : pieces) {
    std::string& s = out.emplace_back();
    for (char c : piece) s += map.CharFor(static_cast<uint8_t>(c));
  }
  return out;
}

std::string Tokenizer::TokenBytes(int32_t id) const {
  impl_->CheckId(id);
  const std::string& s = impl_->id_to_text[static_cast<size_t>(id)];
  if (impl_->kind[static_cast<size_t>(id)] != Impl::Kind::kVocab) return s;
  // HF ByteLevel decoder: a token with a character outside the byte map keeps its raw text.
  std::string bytes;
  if (!text::GetByteLevelMap().ToBytes(s, bytes)) return s;
  return bytes;
}

std::string Tokenizer::Decode(const std::vector<int32_t>& ids, bool skip_special) const {
  std::string bytes;
  for (int32_t id : ids) {
    if (skip_special && IsSpecial(id)) continue;
    bytes += TokenBytes(id);
  }
  std::string out;
  out.reserve(bytes.size());
  text::AppendLossyUtf8(bytes, /*final=*/true, out);
  return out;
}

std::string Tokenizer::TokenText(int32_t id) const {
  impl_->CheckId(id);
  return impl_->id_to_text[static_cast<size_t>(id)];
}

int32_t Tokenizer::TokenId(std::string_view token) const {
  if (auto it = impl_->added.find(token); it != impl_->added.end()) return it->second;
  if (auto it = impl_->vocab.find(token); it != impl_->vocab.end()) return it->second;
  return -1;
}

size_t Tokenizer::size() const { return impl_->kind.size(); }

bool Tokenizer::IsSpecial(int32_t id) const {
  return id >= 0 && static_cast<size_t>(id) < impl_->kind.size() &&
         impl_->kind[static_cast<size_t>(id)] == Impl::Kind::kSpecial;
}

}  // namespace glance
