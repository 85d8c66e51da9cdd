#pragma once
// Which packed tensors an NPU bundle holds for a Qwen3.5 checkpoint, and where each checkpoint
// projection lives inside them — the one mapping both `npu-export` (packing) and the bundle
// reader (unpacking onto the engine's weights) use. The names and fusions are those of IRON's
// Qwen3.5 exporter as the taconite crate's qwen35 runtime reads them (model.rs):
//
//   l{i}.g.in     DeltaNet layer: in_proj_qkv | in_proj_z (rows q|k|v|z);
//                 attention layer: q_proj | k_proj | v_proj (q_proj's rows are already
//                 (q | gate) per head)                                    [flm.GEMM, K = D]
//   l{i}.g.o      out_proj / o_proj                                       [flm.GEMM]
//   l{i}.g.gu     gate_proj and up_proj interleaved 32 | 32 per 64 rows: fused row
//                 64·(r/32) + r%32 is gate row r, + 32 is up row r (the SwiGLU epilogue pairs
//                 them); I padded to a multiple of 32 with zero rows      [flm.GEMM, K = D]
//   l{i}.g.down{j} down_proj's K slice [j·D, (j+1)·D), j < n_down = ⌈I / D⌉ (zero past I)
//   head{j}       the LM head (lm_head, or the tied embedding) rows [j·head_rows, …), in the
//                 GEMVbfp16 row layout (packed_weight.h kGemvRows)
//   <checkpoint name>  every other projection the engine runs (the vision tower), one tensor
//                 each (Glance's addition; IRON's runtime looks these names up never)
// in_proj_b / in_proj_a are not packed: IRON's runtime computes them on the host in f32.
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/npu/packed_weight.h"

namespace glance {
class TensorStore;
}

namespace glance::npu {

// One checkpoint tensor's part of a bundle tensor.
struct BundlePiece {
  std::string checkpoint;        // checkpoint tensor name
  int64_t n_begin = 0, n_end = 0;  // its rows in this bundle tensor
  int64_t k_begin = 0, k_end = 0;  // its columns (a multiple of 8 apart from the end)
  int64_t row_base = 0;          // bundle row of checkpoint row n_begin
  int pair_half = -1;            // -1: rows in order; 0 gate / 1 up: the 32 | 32 interleave
  // The bundle row of checkpoint row n (n_begin <= n < n_end).
  int64_t BundleRow(int64_t n) const;
};

struct BundleTensorPlan {
  std::string name;  // bundle tensor name
  int64_t n = 0, k = 0;  // logical rows (outputs) and columns (inputs)
  kernels::npu::PackedLayout layout = kernels::npu::PackedLayout::kGemmTiles;
  std::vector<BundlePiece> pieces;
};

struct BundlePlan {
  int64_t hidden = 0, intermediate = 0, n_down = 0, head_rows = 0, n_head = 0;
  std::vector<std::string> layer_types;  // "lin" / "att"
  std::vector<BundleTensorPlan> tensors;
};

// The plan for the checkpoint in `store`. head_rows 0: chosen (⌈vocab / ⌈vocab/32768⌉⌉ to a
// multiple of 8). Throws glance::Error when the checkpoint is not a Qwen3.5 layout it knows.
BundlePlan PlanBundle(const TensorStore& store, int64_t head_rows = 0);

// The bundle tensor `t` as f32 [t.n][t.k], assembled from its checkpoint pieces (zero
// elsewhere): what npu-export packs, and what `--backend npu-emu` packs at load without a bundle.
std::vector<float> AssembleBundleTensor(const TensorStore& store, const BundleTensorPlan& t);

}  // namespace glance::npu
