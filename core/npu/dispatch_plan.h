#pragma once
// The dispatch plan of a Qwen3.5 checkpoint's NPU bundle (kernels/npu/fused_dispatch.h): for
// each fused bundle tensor of bundle_plan.h, the kernel keys a real IRON/taconite bundle runs
// it with and the host's share, as taconite-qwen35 src/model.rs does it:
//
//   l{i}.g.in       gemm/gemv key `lin` (DeltaNet: q|k|v|z) or `att` (attention: (q|gate per
//                   head)|k|v); the columns cut back to in_proj_qkv, in_proj_z / q_proj,
//                   k_proj, v_proj (model.rs `n_lin`, `n_att`, `deltanet`, `attention`)
//   l{i}.g.o        key `o`
//   l{i}.g.gu       key `gu`: SwiGLU by the GEMM's paired epilogue in a prompt, on the host
//                   from the GEMV's raw [32 gate | 32 up] pairs for a token (model.rs decode)
//   l{i}.g.down{j}  key `down`, one dispatch a K slice (the GEMM reads the SwiGLU output at
//                   column j·D), partial sums added on the host (model.rs prefill/decode)
//   head{j}         GEMV key `head`, n_head dispatches of head_rows (model.rs `head`)
//   in_proj_b / in_proj_a: not in the bundle; the host computes them in f32 (model.rs
//                   `deltanet`: "gates: b | a = xn W_ba^T, in f32")
//   other projections (the vision tower, Glance's addition): one tensor each, key
//                   `vision.K<k_pad>.N<n_pad>` (IRON's vision kernels are on a context of their
//                   own, taconite's third; records of these keys come from the toolchain)
#include <vector>

#include "core/npu/bundle_plan.h"
#include "kernels/npu/fused_dispatch.h"
#include "kernels/npu/npu_device.h"

namespace glance::npu {

kernels::npu::FusedPlan PlanDispatch(const BundlePlan& plan);

// The prompt's SwiGLU where the bundle's kernels put it: a `gu` GEMM record built without the
// paired epilogue (epilogue=none, as IRON's flm.GEMM builds every GEMM: its epilogues act on one
// accumulator, npu_device.h) returns the raw [32 gate | 32 up] pairs, and the host computes
// silu(gate)·up for prompt rows as it does for a token. Records with the epilogue keep it.
void UseKernelEpilogues(kernels::npu::FusedPlan& plan, const std::vector<kernels::npu::XrtKernelSpec>& specs);

// The rows [n_begin, n_end) of a plain (unpaired) piece, as result columns.
kernels::npu::FusedSlice SliceOf(const BundlePiece& piece);

}  // namespace glance::npu
