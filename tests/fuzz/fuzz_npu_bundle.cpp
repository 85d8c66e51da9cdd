// NPU bundle reader (core/npu/npu_bundle.h NpuBundle::Open): the input is manifest.txt, NUL,
// tensors.txt, NUL, tensors.bin, written into a bundle folder; then the u8 tensors are read.
#include <filesystem>

#include "core/npu/npu_bundle.h"
#include "core/util/error.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = glance::fuzz::SplitNul(glance::fuzz::AsText(data, size), 3);
  glance::fuzz::WriteScratch("manifest.txt", parts[0]);
  glance::fuzz::WriteScratch("tensors.txt", parts[1]);
  glance::fuzz::WriteScratch("tensors.bin", parts[2]);
  try {
    const glance::npu::NpuBundle b = glance::npu::NpuBundle::Open(glance::fuzz::ScratchDir().string());
    (void)b.weight_bytes();
    (void)b.MissingKernelFiles();
    (void)b.kernel_specs();
    for (const auto& [name, t] : b.tensors()) {
      if (t.dtype != "u8" || t.bytes > (1u << 20)) continue;
      try {
        (void)b.ReadBytes(name, t.bytes);
      } catch (const glance::Error&) {
      }
    }
  } catch (const glance::Error&) {
  }
  return 0;
}
