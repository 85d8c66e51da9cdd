// A value axis from 0 with round ticks: 0, 20, 40, 60 s rather than 0.00, 26.53, 53.07.
#pragma once

namespace glance::ui {

struct AxisScale {
  double top = 1.0;   // the axis' end: a whole number of steps, at or above the highest value
  double step = 0.5;  // 1, 2, 2.5 or 5 times a power of ten
  int decimals = 1;   // what the step needs to be printed exactly ("%.Nf")
};

// The smallest round step that covers [0, highest] in at most `max_steps` steps (highest <= 0
// or not finite: 0..1). Round steps after Heckbert, "Nice numbers for graph labels", Graphics Gems (1990).
AxisScale NiceAxisScale(double highest, int max_steps = 4);

}  // namespace glance::ui
