// Weight cache file reader (core/model/weight_cache.h): a cache file from disk, possibly damaged.
// Every entry it accepts must lie inside the file.
#include "core/model/weight_cache.h"
#include "core/util/error.h"
#include "kernels/cpu/quant_formats.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The key "k" is what the seeds were written with; the reader compares it with the file's.
  glance::fuzz::WriteScratch("k.bin", glance::fuzz::AsText(data, size));
  try {
    glance::WeightCache cache(glance::fuzz::ScratchDir().string(), "k");
    if (cache.loaded()) {
      for (auto type : {glance::kernels::WeightType::F32, glance::kernels::WeightType::BF16,
                        glance::kernels::WeightType::F16, glance::kernels::WeightType::Q8,
                        glance::kernels::WeightType::Q4}) {
        for (int64_t rows : {1, 4, 64}) {
          for (int64_t cols : {4, 32, 64}) {
            const auto w = cache.Find("m.weight", type, rows, cols);
            if (!w) continue;
            // The whole matrix (values, then scales when quantized) must be readable: ASan flags
            // a read outside the mapping.
            const auto* data = static_cast<const uint8_t*>(w->data);
            const auto* scales = static_cast<const uint8_t*>(w->scales);
            const uint64_t bytes = glance::kernels::WeightBytes(type, rows, cols);
            volatile uint8_t sink = data[0];
            sink = scales ? scales[0] : data[bytes - 1];
            (void)sink;
            (void)w->at(rows - 1, cols - 1);
          }
        }
      }
    }
  } catch (const glance::Error&) {
  }
  return 0;
}
