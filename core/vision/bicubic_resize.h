#pragma once
// Antialiased bicubic resize as torchvision does it for HF's default (torchvision-backend) Qwen2-VL
// image processor (qwen35.md §4 step 3): uint8 -> float32, PyTorch's separable AA interpolation
// (aten/src/ATen/native/cpu/UpSampleKernel.cpp, `_upsample_bicubic2d_aa`): Keys cubic with
// a = -0.5, support 2·scale when downsampling (PIL-style), weights normalised per output pixel,
// width pass first, then height, each skipped when that size does not change; then clamp to
// [0, 255] and round half to even back to uint8. OpenCV's INTER_CUBIC (a = -0.75, no antialias)
// differs, hence this file.
#include <cstdint>
#include <vector>

#include "core/vision/rgb_image.h"

namespace glance::vision {

// Taps for one axis: output i reads input[start[i] .. start[i] + count[i]) with
// weights[i * max_taps + j]. Computed in float in PyTorch's operation order.
struct ResampleTaps {
  int in_size = 0;
  int out_size = 0;
  int max_taps = 0;
  std::vector<int> start;       // [out_size]
  std::vector<int> count;       // [out_size]
  std::vector<float> weights;   // [out_size][max_taps]
};

ResampleTaps BicubicAntialiasTaps(int in_size, int out_size);

// Resizes to out_h × out_w. Throws glance::Error on empty sizes.
RgbImage ResizeBicubicAntialias(const RgbImage& src, int out_h, int out_w);

}  // namespace glance::vision
