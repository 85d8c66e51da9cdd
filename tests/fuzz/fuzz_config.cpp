// config.json parser (core/model/config.h).
#include "core/model/config.h"
#include "core/util/error.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const glance::ModelConfig c =
        glance::ModelConfig::FromJsonText(std::string(glance::fuzz::AsText(data, size)), "fuzz/config.json");
    (void)c.text.rotary_dim();
  } catch (const glance::Error&) {
  }
  return 0;
}
