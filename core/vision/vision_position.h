#pragma once
// Where each patch row sits, and the two position signals the vision tower derives from it
// (qwen35.md §3.3-3.5): the learned table resampled bilinearly (align_corners=True) to the patch
// grid, and the 2-D rotary angles. Everything follows the merge-window row order of pixel_values.
#include <cstdint>
#include <vector>

#include "kernels/cpu/matmul.h"

namespace glance::vision {

// (row, col) of every patch of one frame in merge-window order: for block row br, block col bc,
// inner row ir, inner col ic -> (br·m + ir, bc·m + ic). Returned as [grid_h·grid_w][2].
std::vector<int32_t> MergeOrderPositions(int grid_h, int grid_w, int merge);

// HF fast_pos_embed_interpolate for one frame, in f32: coordinates from torch.linspace(0, S-1, n)
// (float, symmetric halves), floor/ceil taps clipped to S-1, weights (1-dy)(1-dx), ...,
// sum p00 + p01 + p10 + p11 in that order. table = pos_embed.weight [S·S][hidden].
// Returns [grid_h·grid_w][hidden] in merge-window order.
std::vector<float> InterpolatePosEmbed(const kernels::WeightRef& table, int side, int grid_h, int grid_w,
                                       int merge);

// torch.linspace(start, end, steps) in float, element i (PyTorch's two-sided formula).
float TorchLinspace(float start, float end, int steps, int i);

// Rotary cos/sin for each patch: inv[j] = 1 / θ^(2j/(head_dim/2)), j < head_dim/4;
// angles a = [row·inv | col·inv], emb = [a | a] (head_dim values), all f32.
struct VisionRotary {
  int head_dim = 0;
  std::vector<float> cos;  // [n][head_dim]
  std::vector<float> sin;  // [n][head_dim]
};
VisionRotary BuildVisionRotary(const std::vector<int32_t>& positions, int head_dim, double theta);

// x'[i] = x[i]·cos[i] + rotate_half(x)[i]·sin[i] over one head (HF apply_rotary_pos_emb_vision).
void ApplyRotaryHead(float* x, const float* cos, const float* sin, int head_dim);

}  // namespace glance::vision
