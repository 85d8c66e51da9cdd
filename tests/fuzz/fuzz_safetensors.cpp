// safetensors reader (core/model/safetensors.h): header JSON, dtypes, shapes, offsets.
#include "core/model/safetensors.h"
#include "core/util/error.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = glance::fuzz::WriteScratch("model.safetensors", glance::fuzz::AsText(data, size));
  try {
    const auto file = glance::SafetensorsFile::Open(path);
    for (const auto& [name, view] : file->tensors()) {
      // Every view must lie inside the file: touch its first and last byte, widen small ones.
      if (view.nbytes > 0) {
        volatile uint8_t sink = view.data[0];
        sink = view.data[view.nbytes - 1];
        (void)sink;
      }
      if (view.nbytes <= 4096) {
        try {
          (void)view.ToF32();
        } catch (const glance::Error&) {
        }
      }
    }
    file->CheckUnchanged();
  } catch (const glance::Error&) {
  }
  return 0;
}
