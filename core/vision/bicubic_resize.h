#pragma once
// Antialiased bicubic resize as HF's default (torchvision-backend) Qwen2-VL image processor does it
// (qwen35.md §4 step 3). torchvision hands uint8 straight to PyTorch for bicubic on CPU, and
// PyTorch's uint8 antialias path (aten/src/ATen/native/cpu/UpSampleKernel.cpp,
// `_compute_index_ranges_int16_weights` + the separable AA loops) works like PIL:
//   - per output pixel, Keys cubic (a = -0.5) taps over a support of 2·scale when downsampling,
//     computed in double and normalised to sum 1;
//   - weights quantised to int16 with the largest precision p such that round(w_max·2^p) < 2^15;
//   - acc = 2^(p-1) + Σ src·w16 in int32, out = clamp(acc >> p, 0, 255);
//   - width pass first, rounded to uint8, then height pass; a pass is skipped when its size
//     does not change.
// OpenCV's INTER_CUBIC (a = -0.75, no antialias) differs, hence this file.
#include <cstdint>
#include <vector>

#include "core/vision/rgb_image.h"

namespace glance::vision {

// Taps for one axis: output i reads input[start[i] .. start[i] + count[i]) with
// weights[i * max_taps + j] (double, normalised) quantised to weights_i16 at `precision` bits.
struct ResampleTaps {
  int in_size = 0;
  int out_size = 0;
  int max_taps = 0;
  int precision = 0;                 // fixed-point bits of weights_i16
  std::vector<int> start;            // [out_size]
  std::vector<int> count;            // [out_size]
  std::vector<double> weights;       // [out_size][max_taps]
  std::vector<int16_t> weights_i16;  // [out_size][max_taps]
};

ResampleTaps BicubicAntialiasTaps(int in_size, int out_size);

// Resizes to out_h × out_w. Throws glance::Error on empty sizes.
RgbImage ResizeBicubicAntialias(const RgbImage& src, int out_h, int out_w);

}  // namespace glance::vision
