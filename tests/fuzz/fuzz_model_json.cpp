// The model folder's two small JSON side files: preprocessor_config.json (core/vision/
// image_preprocessor.h, whose pixel limits then size a resize through SmartResize) and
// generation_config.json (SamplingFromGenerationConfig, core/engine/sampler.h). One input is
// "<preprocessor_config>\0<generation_config>".
#include <cstdint>
#include <string>
#include <utility>

#include "core/engine/sampler.h"
#include "core/util/error.h"
#include "core/vision/image_preprocessor.h"
#include "core/vision/smart_resize.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = glance::fuzz::SplitNul(glance::fuzz::AsText(data, size), 2);
  try {
    const auto pre =
        glance::vision::PreprocessorConfig::FromJsonText(std::string(parts[0]), "fuzz/preprocessor_config.json");
    (void)pre.patch_dim();
    // The limits it accepted must size a resize without overflow: a small image, a large one
    // and a thin one.
    for (const auto& [h, w] : {std::pair<int64_t, int64_t>{224, 224}, {8000, 6000}, {33, 4000}}) {
      try {
        (void)glance::vision::SmartResize(h, w, pre.factor(), pre.min_pixels, pre.max_pixels);
      } catch (const glance::Error&) {
      }
    }
  } catch (const glance::Error&) {
  }
  try {
    const std::string path = glance::fuzz::WriteScratch("generation_config.json", parts[1]);
    (void)glance::SamplingFromGenerationConfig(path);
  } catch (const glance::Error&) {
  }
  return 0;
}
