#include "core/text/stream_decoder.h"

#include "core/text/utf8.h"

namespace glance {

std::string StreamDecoder::Push(int32_t id) {
  std::string bytes = tokenizer_->TokenBytes(id);  // validates the id even when skipped
  if (skip_special_ && tokenizer_->IsSpecial(id)) return {};
  pending_ += bytes;
  std::string out;
  const size_t used = text::AppendLossyUtf8(pending_, /*final=*/false, out);
  pending_.erase(0, used);
  return out;
}

std::string StreamDecoder::Flush() {
  std::string out;
  text::AppendLossyUtf8(pending_, /*final=*/true, out);
  pending_.clear();
  return out;
}

}  // namespace glance
