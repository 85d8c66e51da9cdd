// tokenizer.json loader (core/text/tokenizer_load.cpp), then an encode/decode with whatever loaded.
#include "core/text/tokenizer.h"
#include "core/util/error.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const glance::Tokenizer t = glance::Tokenizer::FromJsonText(glance::fuzz::AsText(data, size), "fuzz/tokenizer.json");
    const std::vector<int32_t> ids = t.Encode("Hello world, thethethe <|im_end|> \xC3\xA9t\xC3\xA9 123");
    (void)t.Decode(ids);
    for (int32_t id : {0, 1, static_cast<int32_t>(t.size()) - 1}) {
      try {
        (void)t.Decode({id});
      } catch (const glance::Error&) {
      }
    }
  } catch (const glance::Error&) {
  }
  return 0;
}
