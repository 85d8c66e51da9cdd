// Weight cache file reader (core/model/weight_cache.h): a cache file from disk, possibly damaged.
// Every entry it accepts must lie inside the file. The footer (a sha256 of the entry table) is
// made to match the mutated bytes first, or no mutation of the table would ever be read.
#include <cstring>
#include <string>

#include "core/model/weight_cache.h"
#include "core/util/error.h"
#include "core/util/sha256.h"
#include "kernels/cpu/quant_formats.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The key "k" is what the seeds were written with; the reader compares it with the file's.
  std::string bytes(glance::fuzz::AsText(data, size));
  // The footer weight_cache.cpp checks: "GLWCEND1", file length, table length, sha256 (hex).
  constexpr size_t kFooter = 88;
  if (bytes.size() >= kFooter + 16) {
    const size_t body = bytes.size() - kFooter;
    uint64_t head = 0;
    std::memcpy(&head, bytes.data() + body + 16, 8);
    head = head % (body + 1);
    const uint64_t total = bytes.size();
    glance::Sha256 h;
    h.Update(bytes.data(), head);
    std::string footer = "GLWCEND1";
    footer.append(reinterpret_cast<const char*>(&total), 8);
    footer.append(reinterpret_cast<const char*>(&head), 8);
    footer += h.HexDigest();
    bytes.replace(body, kFooter, footer);
  }
  glance::fuzz::WriteScratch("k.bin", bytes);
  try {
    glance::WeightCache cache(glance::fuzz::ScratchDir().string(), "k");
    if (cache.loaded()) {
      for (auto type : {glance::kernels::WeightType::F32, glance::kernels::WeightType::BF16,
                        glance::kernels::WeightType::F16, glance::kernels::WeightType::Q8,
                        glance::kernels::WeightType::Q4, glance::kernels::WeightType::Q6}) {
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
