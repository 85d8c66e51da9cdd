#include "core/vision/smart_resize.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/util/error.h"

namespace glance::vision {
namespace {

// Python 3 round(): nearest, ties to even. std::nearbyint does this in the default rounding mode,
// but spelling it out keeps the result independent of the FP environment.
double PythonRound(double x) {
  const double f = std::floor(x);
  const double diff = x - f;
  if (diff > 0.5) return f + 1.0;
  if (diff < 0.5) return f;
  return std::fmod(f, 2.0) == 0.0 ? f : f + 1.0;
}

}  // namespace

ResizeTarget SmartResize(int64_t height, int64_t width, int64_t factor, int64_t min_pixels,
                         int64_t max_pixels) {
  if (height < 1 || width < 1) {
    throw Error("image is empty (" + std::to_string(width) + "x" + std::to_string(height) +
                " pixels); nothing to look at");
  }
  if (factor < 1 || min_pixels < 0 || max_pixels < 1 || min_pixels > max_pixels) {
    throw Error("preprocessor limits are inconsistent (factor " + std::to_string(factor) +
                ", min_pixels " + std::to_string(min_pixels) + ", max_pixels " +
                std::to_string(max_pixels) + "); check preprocessor_config.json");
  }
  const double h = static_cast<double>(height), w = static_cast<double>(width);
  const double f = static_cast<double>(factor);
  // HF: max(h, w) / min(h, w) > 200 raises.
  if (std::max(h, w) / std::min(h, w) > 200.0) {
    throw Error("image aspect ratio " + std::to_string(width) + "x" + std::to_string(height) +
                " is more extreme than 200:1, which the Qwen vision tower cannot take; crop it");
  }
  double h_bar = PythonRound(h / f) * f;
  double w_bar = PythonRound(w / f) * f;
  if (h_bar * w_bar > static_cast<double>(max_pixels)) {
    const double beta = std::sqrt((h * w) / static_cast<double>(max_pixels));
    h_bar = std::max(f, std::floor(h / beta / f) * f);
    w_bar = std::max(f, std::floor(w / beta / f) * f);
  } else if (h_bar * w_bar < static_cast<double>(min_pixels)) {
    const double beta = std::sqrt(static_cast<double>(min_pixels) / (h * w));
    h_bar = std::ceil(h * beta / f) * f;
    w_bar = std::ceil(w * beta / f) * f;
  }
  // Only reachable with min_pixels = 0 and a side < factor/2, where HF would return 0: keep
  // at least one merge window per side instead.
  h_bar = std::max(h_bar, f);
  w_bar = std::max(w_bar, f);
  ResizeTarget t;
  t.height = static_cast<int>(h_bar);
  t.width = static_cast<int>(w_bar);
  return t;
}

}  // namespace glance::vision
