#include "core/engine/timing.h"

namespace glance {

void Timing::Add(const std::string& stage, double seconds, int64_t calls, double npu_s, double transfer_s) {
  for (auto& s : stages_) {
    if (s.name == stage) {
      s.seconds += seconds;
      s.calls += calls;
      s.npu_s += npu_s;
      s.transfer_s += transfer_s;
      return;
    }
  }
  stages_.push_back({stage, seconds, calls, npu_s, transfer_s});
}

double Timing::Seconds(const std::string& stage) const {
  for (const auto& s : stages_)
    if (s.name == stage) return s.seconds;
  return 0.0;
}

}  // namespace glance
