#include "core/vision/bicubic_resize.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/util/error.h"

namespace glance::vision {
namespace {

// Keys cubic convolution, a = -0.5 (PyTorch aa_filter for bicubic; PIL's bicubic_filter).
float CubicFilter(float x) {
  constexpr float a = -0.5f;
  x = std::fabs(x);
  if (x < 1.0f) return ((a + 2.0f) * x - (a + 3.0f)) * x * x + 1.0f;
  if (x < 2.0f) return ((a * x - 5.0f * a) * x + 8.0f * a) * x - 4.0f * a;
  return 0.0f;
}

}  // namespace

ResampleTaps BicubicAntialiasTaps(int in_size, int out_size) {
  ResampleTaps t;
  t.in_size = in_size;
  t.out_size = out_size;
  // The float/double mix below mirrors PyTorch's expressions (scalar_t = float, literals double),
  // so window bounds land on the same pixels.
  const float scale = static_cast<float>(in_size) / static_cast<float>(out_size);
  constexpr double kInterpSize = 4.0;  // bicubic
  const float support = scale >= 1.0f ? static_cast<float>(kInterpSize * 0.5 * static_cast<double>(scale))
                                      : static_cast<float>(kInterpSize * 0.5);
  t.max_taps = static_cast<int>(std::ceil(support)) * 2 + 1;
  const float invscale = scale >= 1.0f ? static_cast<float>(1.0 / static_cast<double>(scale)) : 1.0f;
  t.start.resize(size_t(out_size));
  t.count.resize(size_t(out_size));
  t.weights.assign(size_t(out_size) * size_t(t.max_taps), 0.0f);
  for (int i = 0; i < out_size; ++i) {
    const float center = static_cast<float>(static_cast<double>(scale) * (i + 0.5));
    const int64_t xmin = std::max<int64_t>(static_cast<int64_t>(static_cast<double>(center - support) + 0.5), 0);
    int64_t xsize = std::min<int64_t>(static_cast<int64_t>(static_cast<double>(center + support) + 0.5), in_size) - xmin;
    xsize = std::clamp<int64_t>(xsize, 0, t.max_taps);
    float* w = t.weights.data() + size_t(i) * size_t(t.max_taps);
    float total = 0.0f;
    for (int64_t j = 0; j < xsize; ++j) {
      const float d = static_cast<float>(j + xmin) - center;
      w[j] = CubicFilter(static_cast<float>((static_cast<double>(d) + 0.5) * static_cast<double>(invscale)));
      total += w[j];
    }
    if (total != 0.0f) {
      for (int64_t j = 0; j < xsize; ++j) w[j] /= total;
    }
    t.start[size_t(i)] = static_cast<int>(xmin);
    t.count[size_t(i)] = static_cast<int>(xsize);
  }
  return t;
}

namespace {

// Output columns are produced in strips so the float intermediate stays small (rows × strip × 3)
// even for a 100-megapixel source. Each output value depends only on its own taps, so strips
// give the same numbers as one whole-image pass.
constexpr int kStripCols = 256;

// Width pass for output columns [x0, x1) of every row: uint8 -> float [rows][x1-x0][3].
// PyTorch interpolate_aa_single_dim: acc = v0*w0; acc += vj*wj, in float, in order.
void HorizontalStrip(const RgbImage& src, const ResampleTaps* taps, int x0, int x1, std::vector<float>* dst) {
  const int n = x1 - x0;
  dst->resize(size_t(src.height) * size_t(n) * 3);
  for (int y = 0; y < src.height; ++y) {
    float* out = dst->data() + size_t(y) * size_t(n) * 3;
    for (int x = x0; x < x1; ++x, out += 3) {
      if (taps == nullptr) {  // width unchanged: PyTorch skips this pass
        const uint8_t* p = src.at(y, x);
        for (int c = 0; c < 3; ++c) out[c] = static_cast<float>(p[c]);
        continue;
      }
      const float* w = taps->weights.data() + size_t(x) * size_t(taps->max_taps);
      const int start = taps->start[size_t(x)], count = taps->count[size_t(x)];
      for (int c = 0; c < 3; ++c) {
        float acc = 0.0f;
        for (int j = 0; j < count; ++j) {
          const float v = static_cast<float>(src.at(y, start + j)[c]);
          acc = j == 0 ? v * w[j] : acc + v * w[j];
        }
        out[c] = acc;
      }
    }
  }
}

// torchvision: clamp_(0, 255).round_() (half to even), then to uint8.
uint8_t ToU8(float v) { return static_cast<uint8_t>(std::nearbyint(std::clamp(v, 0.0f, 255.0f))); }

}  // namespace

RgbImage ResizeBicubicAntialias(const RgbImage& src, int out_h, int out_w) {
  if (src.height <= 0 || src.width <= 0 || out_h <= 0 || out_w <= 0) {
    throw Error("cannot resize a " + std::to_string(src.width) + "x" + std::to_string(src.height) +
                " image to " + std::to_string(out_w) + "x" + std::to_string(out_h));
  }
  if (out_h == src.height && out_w == src.width) return src;
  ResampleTaps htaps, vtaps;
  const bool do_h = out_w != src.width, do_v = out_h != src.height;
  if (do_h) htaps = BicubicAntialiasTaps(src.width, out_w);
  if (do_v) vtaps = BicubicAntialiasTaps(src.height, out_h);

  RgbImage out;
  out.height = out_h;
  out.width = out_w;
  out.pixels.resize(size_t(out_h) * size_t(out_w) * 3);
  std::vector<float> strip;
  for (int x0 = 0; x0 < out_w; x0 += kStripCols) {
    const int x1 = std::min(out_w, x0 + kStripCols), n = x1 - x0;
    HorizontalStrip(src, do_h ? &htaps : nullptr, x0, x1, &strip);
    for (int y = 0; y < out_h; ++y) {
      uint8_t* dst = out.pixels.data() + (size_t(y) * size_t(out_w) + size_t(x0)) * 3;
      if (!do_v) {
        const float* row = strip.data() + size_t(y) * size_t(n) * 3;
        for (int k = 0; k < n * 3; ++k) dst[k] = ToU8(row[k]);
        continue;
      }
      const float* w = vtaps.weights.data() + size_t(y) * size_t(vtaps.max_taps);
      const int start = vtaps.start[size_t(y)], count = vtaps.count[size_t(y)];
      for (int k = 0; k < n * 3; ++k) {
        float acc = 0.0f;
        for (int j = 0; j < count; ++j) {
          const float v = strip[size_t(start + j) * size_t(n) * 3 + size_t(k)];
          acc = j == 0 ? v * w[j] : acc + v * w[j];
        }
        dst[k] = ToU8(acc);
      }
    }
  }
  return out;
}

}  // namespace glance::vision
