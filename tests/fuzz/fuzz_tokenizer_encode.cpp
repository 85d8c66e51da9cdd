// Encoding arbitrary text with the real tiny-a tokenizer (tests/data/tiny-a): pre-tokenizer
// regex, NFC, BPE, added-token matching. Valid UTF-8 must round-trip exactly.
#include <cstdlib>

#include "core/text/tokenizer.h"
#include "core/text/utf8.h"
#include "core/util/error.h"
#include "tests/fuzz/fuzz_util.h"

namespace {
const glance::Tokenizer& Tiny() {
  static const glance::Tokenizer t = glance::Tokenizer::FromFile(std::string(GLANCE_TEST_DATA) + "/tiny-a/tokenizer.json");
  return t;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = glance::fuzz::AsText(data, size);
  try {
    const std::vector<int32_t> ids = Tiny().Encode(text);
    // NFC may change the bytes; text that is ASCII must come back byte for byte.
    if (glance::text::IsAscii(text) && Tiny().Decode(ids) != text) std::abort();
  } catch (const glance::Error&) {
  }
  return 0;
}
