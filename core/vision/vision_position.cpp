#include "core/vision/vision_position.h"

#include <algorithm>
#include <cmath>

namespace glance::vision {

std::vector<int32_t> MergeOrderPositions(int grid_h, int grid_w, int merge) {
  std::vector<int32_t> pos;
  pos.reserve(size_t(grid_h) * size_t(grid_w) * 2);
  for (int br = 0; br < grid_h / merge; ++br) {
    for (int bc = 0; bc < grid_w / merge; ++bc) {
      for (int ir = 0; ir < merge; ++ir) {
        for (int ic = 0; ic < merge; ++ic) {
          pos.push_back(br * merge + ir);
          pos.push_back(bc * merge + ic);
        }
      }
    }
  }
  return pos;
}

float TorchLinspace(float start, float end, int steps, int i) {
  if (steps <= 1) return start;
  const float step = (end - start) / static_cast<float>(steps - 1);
  const int halfway = steps / 2;
  return i < halfway ? start + step * static_cast<float>(i)
                     : end - step * static_cast<float>(steps - i - 1);
}

std::vector<float> InterpolatePosEmbed(const kernels::WeightRef& table, int side, int grid_h, int grid_w,
                                       int merge) {
  const int64_t hidden = table.cols;
  const std::vector<int32_t> pos = MergeOrderPositions(grid_h, grid_w, merge);
  const size_t n = pos.size() / 2;
  std::vector<float> out(n * size_t(hidden));
  std::vector<float> rows[4];
  for (auto& r : rows) r.resize(size_t(hidden));
  const float last = static_cast<float>(side - 1);
  for (size_t p = 0; p < n; ++p) {
    const float sy = TorchLinspace(0.0f, last, grid_h, pos[2 * p]);
    const float sx = TorchLinspace(0.0f, last, grid_w, pos[2 * p + 1]);
    const int y0 = static_cast<int>(sy), x0 = static_cast<int>(sx);
    const int y1 = std::min(y0 + 1, side - 1), x1 = std::min(x0 + 1, side - 1);
    const float dy = sy - static_cast<float>(y0), dx = sx - static_cast<float>(x0);
    const float w[4] = {(1.0f - dy) * (1.0f - dx), (1.0f - dy) * dx, dy * (1.0f - dx), dy * dx};
    const int64_t idx[4] = {int64_t{y0} * side + x0, int64_t{y0} * side + x1, int64_t{y1} * side + x0,
                            int64_t{y1} * side + x1};
    for (int k = 0; k < 4; ++k) table.row_to_f32(idx[k], rows[k].data());
    float* dst = out.data() + p * size_t(hidden);
    for (int64_t c = 0; c < hidden; ++c) {
      const size_t uc = size_t(c);
      dst[c] = rows[0][uc] * w[0] + rows[1][uc] * w[1] + rows[2][uc] * w[2] + rows[3][uc] * w[3];
    }
  }
  return out;
}

VisionRotary BuildVisionRotary(const std::vector<int32_t>& positions, int head_dim, double theta) {
  // HF VisionRotaryEmbedding(dim = head_dim / 2): inv_freq over arange(0, dim, 2) / dim.
  const int dim = head_dim / 2, n_freq = dim / 2;
  std::vector<float> inv(static_cast<size_t>(n_freq));
  for (int j = 0; j < n_freq; ++j) {
    const float e = static_cast<float>(2 * j) / static_cast<float>(dim);
    inv[size_t(j)] = 1.0f / std::pow(static_cast<float>(theta), e);
  }
  VisionRotary r;
  r.head_dim = head_dim;
  const size_t n = positions.size() / 2;
  r.cos.resize(n * size_t(head_dim));
  r.sin.resize(n * size_t(head_dim));
  for (size_t p = 0; p < n; ++p) {
    float* c = r.cos.data() + p * size_t(head_dim);
    float* s = r.sin.data() + p * size_t(head_dim);
    for (int axis = 0; axis < 2; ++axis) {
      const float coord = static_cast<float>(positions[2 * p + size_t(axis)]);
      for (int j = 0; j < n_freq; ++j) {
        const float a = coord * inv[size_t(j)];
        const int k = axis * n_freq + j;  // [row freqs | col freqs], then repeated: [a | a]
        c[k] = c[k + dim] = std::cos(a);
        s[k] = s[k + dim] = std::sin(a);
      }
    }
  }
  return r;
}

void ApplyRotaryHead(float* x, const float* cos, const float* sin, int head_dim) {
  const int half = head_dim / 2;
  for (int i = 0; i < half; ++i) {
    const float a = x[i], b = x[i + half];
    // rotate_half(x) = [-x2 | x1]
    x[i] = a * cos[i] + (-b) * sin[i];
    x[i + half] = b * cos[i + half] + a * sin[i + half];
  }
}

}  // namespace glance::vision
