#include "core/vision/bicubic_resize.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/util/error.h"

namespace glance::vision {
namespace {

// Keys cubic convolution, a = -0.5 (PyTorch aa_filter for bicubic; PIL's bicubic_filter).
double CubicFilter(double x) {
  constexpr double a = -0.5;
  x = std::fabs(x);
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
  if (x < 2.0) return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
  return 0.0;
}

}  // namespace

ResampleTaps BicubicAntialiasTaps(int in_size, int out_size) {
  ResampleTaps t;
  t.in_size = in_size;
  t.out_size = out_size;
  // PyTorch _compute_index_ranges_weights<double> (align_corners = false, antialias = true).
  const double scale = static_cast<double>(in_size) / static_cast<double>(out_size);
  const double support = scale >= 1.0 ? 2.0 * scale : 2.0;
  t.max_taps = static_cast<int>(std::ceil(support)) * 2 + 1;
  const double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  t.start.resize(size_t(out_size));
  t.count.resize(size_t(out_size));
  t.weights.assign(size_t(out_size) * size_t(t.max_taps), 0.0);
  double wt_max = 0.0;
  for (int i = 0; i < out_size; ++i) {
    const double center = scale * (i + 0.5);
    const int64_t xmin = std::max<int64_t>(static_cast<int64_t>(center - support + 0.5), 0);
    int64_t xsize = std::min<int64_t>(static_cast<int64_t>(center + support + 0.5), in_size) - xmin;
    xsize = std::clamp<int64_t>(xsize, 0, t.max_taps);
    double* w = t.weights.data() + size_t(i) * size_t(t.max_taps);
    double total = 0.0;
    for (int64_t j = 0; j < xsize; ++j) {
      w[j] = CubicFilter((static_cast<double>(j + xmin) - center + 0.5) * invscale);
      total += w[j];
    }
    if (total != 0.0) {
      for (int64_t j = 0; j < xsize; ++j) {
        w[j] /= total;
        wt_max = std::max(wt_max, w[j]);
      }
    }
    t.start[size_t(i)] = static_cast<int>(xmin);
    t.count[size_t(i)] = static_cast<int>(xsize);
  }
  // _compute_index_ranges_int16_weights: the largest precision keeping w_max·2^(p+1) < 2^15.
  int p = 0;
  for (p = 0; p < 22; ++p) {
    const int next = static_cast<int>(0.5 + wt_max * static_cast<double>(1 << (p + 1)));
    if (next >= (1 << 15)) break;
  }
  t.precision = p;
  t.weights_i16.resize(t.weights.size());
  for (size_t k = 0; k < t.weights.size(); ++k) {
    const double v = t.weights[k] * static_cast<double>(1 << p);
    t.weights_i16[k] = static_cast<int16_t>(v < 0 ? v - 0.5 : v + 0.5);
  }
  return t;
}

namespace {

// One output sample: 2^(p-1) + Σ v·w in int32, >> p, clamped (PyTorch's uint8 AA loop).
inline uint8_t Convolve(const uint8_t* src, size_t step, const int16_t* w, int count, int precision) {
  int32_t acc = precision > 0 ? (1 << (precision - 1)) : 0;
  for (int j = 0; j < count; ++j) acc += int32_t{src[size_t(j) * step]} * int32_t{w[j]};
  return static_cast<uint8_t>(std::clamp(acc >> precision, 0, 255));
}

// Width pass: [h][w][3] -> [h][out_w][3].
RgbImage ResizeWidth(const RgbImage& src, const ResampleTaps& t) {
  RgbImage out;
  out.height = src.height;
  out.width = t.out_size;
  out.pixels.resize(size_t(out.height) * size_t(out.width) * 3);
  for (int y = 0; y < src.height; ++y) {
    uint8_t* dst = out.pixels.data() + size_t(y) * size_t(out.width) * 3;
    for (int x = 0; x < t.out_size; ++x) {
      const int16_t* w = t.weights_i16.data() + size_t(x) * size_t(t.max_taps);
      const uint8_t* s = src.at(y, t.start[size_t(x)]);
      for (int c = 0; c < 3; ++c) *dst++ = Convolve(s + c, 3, w, t.count[size_t(x)], t.precision);
    }
  }
  return out;
}

// Height pass: [h][w][3] -> [out_h][w][3].
RgbImage ResizeHeight(const RgbImage& src, const ResampleTaps& t) {
  RgbImage out;
  out.height = t.out_size;
  out.width = src.width;
  out.pixels.resize(size_t(out.height) * size_t(out.width) * 3);
  const size_t row = size_t(src.width) * 3;
  for (int y = 0; y < t.out_size; ++y) {
    const int16_t* w = t.weights_i16.data() + size_t(y) * size_t(t.max_taps);
    const uint8_t* s = src.pixels.data() + size_t(t.start[size_t(y)]) * row;
    uint8_t* dst = out.pixels.data() + size_t(y) * row;
    for (size_t k = 0; k < row; ++k) dst[k] = Convolve(s + k, row, w, t.count[size_t(y)], t.precision);
  }
  return out;
}

}  // namespace

RgbImage ResizeBicubicAntialias(const RgbImage& src, int out_h, int out_w) {
  if (src.height <= 0 || src.width <= 0 || out_h <= 0 || out_w <= 0) {
    throw Error("cannot resize a " + std::to_string(src.width) + "x" + std::to_string(src.height) +
                " image to " + std::to_string(out_w) + "x" + std::to_string(out_h));
  }
  // Width first, then height, each only when it changes (PyTorch separable AA order).
  if (out_w == src.width) {
    if (out_h == src.height) return src;
    return ResizeHeight(src, BicubicAntialiasTaps(src.height, out_h));
  }
  RgbImage wide = ResizeWidth(src, BicubicAntialiasTaps(src.width, out_w));
  if (out_h == src.height) return wide;
  return ResizeHeight(wide, BicubicAntialiasTaps(src.height, out_h));
}

}  // namespace glance::vision
