#pragma once
// The kernel part of a bundle `glance-cli npu-export` writes: for every kernel key the dispatch
// plan (dispatch_plan.h) uses, the records a real IRON bundle has — an xclbin record per
// hardware context (gemm, gemv, vision), a `gemm` record and `gemm_chunks` records for 2..4
// chunks per GEMM key, a `gemv` record per GEMV key (npu_bundle.h's format, the fields
// taconite's bundle reader takes) — with PLACEHOLDER files: each instruction stream is four
// distinct words, not NPU instructions, and each xclbin is a text file. The stand-in device
// (kernels/npu/xrt_standin.h) identifies a run by its stream and computes it with the
// emulator, so such a bundle runs the whole XRT call sequence through it; real hardware needs
// the xclbins and instruction streams IRON's toolchain compiles for these shapes (aiecc over
// flm.GEMM / GEMVbfp16 designs: CDO/PDI in the xclbin, the shim DMA and lock program in the
// stream). The manifest says `param kernels placeholder`, and npu-status / `auto` refuse
// such a bundle for the NPU (npu_detect.cpp), so a placeholder stream never reaches a device.
#include <string>

#include "core/npu/bundle_plan.h"

namespace glance::npu {

inline constexpr const char* kPlaceholderKernels = "placeholder";
inline constexpr int kPlaceholderMaxChunks = 4;  // gemm_chunks records for 2..4 (MakeEmulatorDevice's)

// Writes out_dir/kernels/* and returns the manifest lines (records) that name them.
// `skip` ("gemv down", "gemm_chunks gu 3", ...) leaves one record out (for negative controls).
std::string WritePlaceholderKernels(const BundlePlan& plan, const std::string& out_dir, const std::string& skip = "");

}  // namespace glance::npu
