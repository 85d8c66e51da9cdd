#include "ui/axis_scale.h"

#include <algorithm>
#include <cmath>

namespace glance::ui {

AxisScale NiceAxisScale(double highest, int max_steps) {
  max_steps = std::max(1, max_steps);
  if (!(highest > 0.0) || !std::isfinite(highest)) return {};
  const double raw = highest / max_steps;  // no step may be smaller than this
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  AxisScale s;
  for (double mantissa : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    s.step = mantissa * power;
    if (s.step >= raw * (1.0 - 1e-9)) break;
  }
  s.top = std::ceil(highest / s.step - 1e-9) * s.step;
  // Digits after the point: as many as the step's magnitude asks, one more for 2.5 x 10^k.
  const double exponent = std::floor(std::log10(s.step) + 1e-9);
  const double mantissa = s.step / std::pow(10.0, exponent);
  s.decimals = std::max(0, static_cast<int>(-exponent) + (std::fabs(mantissa - 2.5) < 1e-6 ? 1 : 0));
  return s;
}

}  // namespace glance::ui
