#include "core/lm/mrope.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/model/config.h"
#include "core/util/error.h"

namespace glance::lm {

std::vector<ImageRun> FindImageRuns(std::span<const int64_t> ids, int64_t image_token_id,
                                    std::span<const ImageGrid> grids) {
  const int64_t n = static_cast<int64_t>(ids.size());
  std::vector<ImageRun> runs;
  size_t image = 0;
  int64_t i = 0;
  while (i < n) {
    if (ids[static_cast<size_t>(i)] != image_token_id) {  // text token (incl. vision_start/end)
      ++i;
      continue;
    }
    if (image >= grids.size()) {
      throw Error("M-RoPE: image placeholder token " + std::to_string(image_token_id) +
                  " at index " + std::to_string(i) + " but only " +
                  std::to_string(grids.size()) + " image grid(s) were given");
    }
    const ImageGrid g = grids[image];
    if (g.h <= 0 || g.w <= 0) {
      throw Error("M-RoPE: image " + std::to_string(image) + " has an empty token grid " +
                  std::to_string(g.h) + "x" + std::to_string(g.w));
    }
    const int64_t count = g.h * g.w;
    if (i + count > n) {
      throw Error("M-RoPE: image " + std::to_string(image) + " needs " + std::to_string(count) +
                  " placeholder tokens (grid " + std::to_string(g.h) + "x" +
                  std::to_string(g.w) + ") from index " + std::to_string(i) +
                  " but the sequence ends at " + std::to_string(n));
    }
    for (int64_t k = 0; k < count; ++k) {
      if (ids[static_cast<size_t>(i + k)] != image_token_id) {
        throw Error("M-RoPE: image " + std::to_string(image) + " expects " +
                    std::to_string(count) + " consecutive placeholder tokens from index " +
                    std::to_string(i) + ", found another token at index " +
                    std::to_string(i + k));
      }
    }
    runs.push_back({i, g});
    i += count;
    ++image;
  }
  if (image != grids.size()) {
    throw Error("M-RoPE: " + std::to_string(grids.size()) + " image grid(s) given but the " +
                "sequence holds placeholders for " + std::to_string(image));
  }
  return runs;
}

MropePositions ComputeMropePositions(int64_t n, std::span<const ImageRun> runs) {
  MropePositions out;
  out.n_tokens = n;
  out.pos.assign(static_cast<size_t>(3 * n), 0);
  int64_t* pt = out.pos.data();
  int64_t* ph = pt + n;
  int64_t* pw = ph + n;
  int64_t cur = 0;  // next free position (HF: max of previous positions + 1)
  int64_t i = 0;
  auto text_until = [&](int64_t stop) {  // text rows advance one position on all axes
    for (; i < stop; ++i) pt[i] = ph[i] = pw[i] = cur++;
  };
  for (const ImageRun& r : runs) {
    if (r.begin < i || r.begin + r.length() > n) throw Error("M-RoPE: image runs overlap or pass the end");
    text_until(r.begin);
    const int64_t w = r.grid.w;
    for (int64_t k = 0; k < r.length(); ++k) {
      // Raster order over the merged grid; temporal index 0 for a still image.
      pt[i + k] = cur;
      ph[i + k] = cur + k / w;
      pw[i + k] = cur + k % w;
    }
    cur += std::max(r.grid.h, r.grid.w);  // qwen35.md §2.6: max(mh, mw), not mh·mw
    i += r.length();
  }
  text_until(n);
  // cur = max position + 1 (positions only grow along the walk).
  out.rope_delta = cur - n;
  return out;
}

MropePositions ComputeMropePositions(std::span<const int64_t> ids, int64_t image_token_id,
                                     std::span<const ImageGrid> grids) {
  const std::vector<ImageRun> runs = FindImageRuns(ids, image_token_id, grids);
  return ComputeMropePositions(static_cast<int64_t>(ids.size()), runs);
}

std::vector<int64_t> TextPositions(int64_t cache_len, int64_t rope_delta, int64_t n) {
  std::vector<int64_t> pos(static_cast<size_t>(3 * n));
  for (int a = 0; a < 3; ++a)
    for (int64_t i = 0; i < n; ++i) pos[static_cast<size_t>(a * n + i)] = cache_len + rope_delta + i;
  return pos;
}

RopeTable::RopeTable(const TextConfig& cfg) {
  rotary_dim_ = cfg.rotary_dim();
  if (rotary_dim_ <= 0 || rotary_dim_ % 2 != 0 || rotary_dim_ > cfg.head_dim) {
    throw Error("config.json: rotary dim head_dim*partial_rotary_factor = " +
                std::to_string(rotary_dim_) + " must be even and in (0, head_dim]");
  }
  const int half = rotary_dim_ / 2;
  inv_freq_.resize(static_cast<size_t>(half));
  axis_.resize(static_cast<size_t>(half));
  for (int j = 0; j < half; ++j) {
    // HF: 1 / theta^(arange(0, dim, 2) / dim), in f32.
    const float expo = static_cast<float>(2 * j) / static_cast<float>(rotary_dim_);
    inv_freq_[static_cast<size_t>(j)] =
        1.0f / static_cast<float>(std::pow(cfg.rope_theta, static_cast<double>(expo)));
    int axis = 0;
    if (cfg.mrope_interleaved) {
      if (j % 3 == 1 && j < 3 * cfg.mrope_section[1]) axis = 1;
      else if (j % 3 == 2 && j < 3 * cfg.mrope_section[2]) axis = 2;
    } else {
      // Non-interleaved (chunked) sections: [t | h | w] consecutive frequency blocks.
      if (j >= cfg.mrope_section[0] + cfg.mrope_section[1]) axis = 2;
      else if (j >= cfg.mrope_section[0]) axis = 1;
    }
    axis_[static_cast<size_t>(j)] = axis;
  }
}

void RopeTable::Compute(const int64_t* positions, int64_t n, int64_t stride, float* cos,
                        float* sin) const {
  const int half = rotary_dim_ / 2;
  for (int64_t i = 0; i < n; ++i) {
    float* c = cos + i * rotary_dim_;
    float* s = sin + i * rotary_dim_;
    for (int j = 0; j < half; ++j) {
      const int64_t p = positions[axis_[static_cast<size_t>(j)] * stride + i];
      // HF: freqs = inv_freq (f32) x position (f32) in f32; cos/sin in f32.
      const float ang = inv_freq_[static_cast<size_t>(j)] * static_cast<float>(p);
      c[j] = c[j + half] = std::cos(ang);
      s[j] = s[j + half] = std::sin(ang);
    }
  }
}

void ApplyRope(float* x, const float* cos, const float* sin, int rotary_dim) {
  const int half = rotary_dim / 2;
  for (int j = 0; j < half; ++j) {
    const float x1 = x[j], x2 = x[j + half];
    x[j] = x1 * cos[j] - x2 * sin[j];
    x[j + half] = x2 * cos[j + half] + x1 * sin[j + half];
  }
}

}  // namespace glance::lm
