#pragma once
// The dispatch plan, as data: which fused kernel of an NPU bundle serves which of the model's
// projections, and what the host does with its result. No model knowledge here — the plan is
// built from a bundle's tensor map by core/npu/dispatch_plan.h; NpuBackend only follows it.
//
// What a real IRON/taconite bundle holds, and how its runtime dispatches it (taconite-qwen35
// src/model.rs, replaying IRON's iron/applications/qwen3_5/qwen35_npu.py):
//   prompt          each projection one flm.GEMM over the prompt's 256-row chunks, kernel key
//                   gemm.<key>.x<n> (n = ⌈rows / 256⌉, the `gemm_chunks` records)
//   generated token each projection one GEMVbfp16, kernel key gemv.<key>; the head in n_head
//                   dispatches of head_rows rows
// and the host's share of each result (Combine below).
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/npu/npu_device.h"

namespace glance::kernels::npu {

enum class Combine : uint8_t {
  // One tensor; its output columns are cut among the checkpoint projections (`slices`):
  // DeltaNet in = q|k|v (in_proj_qkv) | z, attention in = (q|gate per head) | k | v, o alone.
  kSlices,
  // One tensor, gate | up interleaved 32 | 32 per 64 rows; the result is silu(gate)·up over
  // `out_cols` columns: written by the GEMM's paired epilogue in a prompt, computed on the host
  // from the GEMV's raw pairs for a token (taconite model.rs decode, PAIR_HALF).
  kSwiGlu,
  // One tensor per K slice of `k_slice` input columns (down_proj: n_down slices of D), each
  // dispatched into its own partial result, summed on the host in slice order.
  kSumKSlices,
  // One tensor per block of output rows (the head: head_rows each), concatenated and cut to
  // `out_cols` (the vocabulary). GEMV only, in a prompt too (one row at a time).
  kRowBlocks,
};

// The columns [begin, end) of the fused result that are checkpoint projection `checkpoint`.
struct FusedSlice {
  std::string checkpoint;
  int64_t begin = 0, end = 0;
};

struct FusedProjection {
  Combine combine = Combine::kSlices;
  std::vector<std::string> tensors;  // bundle tensors, one dispatch each (in order)
  std::string gemm_key, gemv_key;    // kernel record keys; "" = the bundle has no such kernel
  Epilogue prefill_epilogue = Epilogue::kNone;
  // kSlices: every projection it computes, by columns; kSwiGlu: {gate, up} (begin/end unused);
  // kSumKSlices / kRowBlocks: the one projection.
  std::vector<FusedSlice> slices;
  int64_t in_cols = 0;   // the checkpoint projections' input width (K)
  int64_t out_cols = 0;  // result columns the host hands back (kSwiGlu: I; kRowBlocks: V)
  int64_t k_slice = 0;   // kSumKSlices: input columns per tensor
};

struct FusedPlan {
  std::vector<FusedProjection> projections;
  // Checkpoint projections the working runtime computes on the host in f32 by design (the
  // DeltaNet's in_proj_b / in_proj_a): not a fallback.
  std::vector<std::string> host_f32;
};

}  // namespace glance::kernels::npu
