#pragma once
// `glance-cli npu-export`: a checkpoint's projection weights as an NPU bundle in the format
// IRON's exporters write (npu_bundle.h): manifest.txt (version, params), tensors.txt and
// tensors.bin with the packed tensors bundle_plan.h lists. The kernels (xclbins, instruction
// streams and their gemm / gemm_chunks / gemv / xclbin records) come from the IRON toolchain;
// the manifest lists the shapes they must cover. With placeholder_kernels (the default) the
// bundle is complete for the stand-in device: every record the dispatch plan needs, with
// placeholder files (bundle_kernels.h), marked so that no NPU is given them. Host tensors (norms,
// DeltaNet parameters, the tokenizer) are not written: Glance reads those from the checkpoint.
#include <cstdint>
#include <functional>
#include <string>

#include "kernels/npu/bfp16.h"

namespace glance::npu {

struct ExportSummary {
  int tensors = 0;
  uint64_t bytes = 0;
};

// Writes the bundle for the checkpoint in model_dir into out_dir (created; bundle files there
// are replaced). progress(fraction, tensor).
ExportSummary ExportNpuBundle(const std::string& model_dir, const std::string& out_dir,
                              kernels::npu::Rounding rounding = kernels::npu::Rounding::kConvEven,
                              const std::function<void(double, const std::string&)>& progress = {},
                              bool placeholder_kernels = true);

}  // namespace glance::npu
