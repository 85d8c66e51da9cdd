#pragma once
// Named stages in first-seen order, each with wall time and call count (gemma.cpp TimingInfo).
// A Timing belongs to one turn of one session: not thread-safe.
#include <chrono>
#include <string>
#include <vector>

#include "core/engine/events.h"
#include "kernels/backend.h"

namespace glance {

class Timing {
 public:
  // With a backend, every ScopedStage also splits its time into the backend's device dispatch
  // and transfer time (Backend::DeviceTotals read at the stage's start and end) and host time.
  explicit Timing(const kernels::Backend* backend = nullptr) : backend_(backend) {}
  void Add(const std::string& stage, double seconds, int64_t calls = 1, double npu_s = 0.0, double transfer_s = 0.0);
  double Seconds(const std::string& stage) const;
  const std::vector<StageTime>& stages() const { return stages_; }
  void Clear() { stages_.clear(); }
  kernels::Backend::DeviceTime Device() const { return backend_ ? backend_->DeviceTotals() : kernels::Backend::DeviceTime{}; }

 private:
  std::vector<StageTime> stages_;
  const kernels::Backend* backend_ = nullptr;
};

// Adds the elapsed time to `stage` when it goes out of scope, with its device/transfer split.
class ScopedStage {
 public:
  ScopedStage(Timing& timing, std::string stage)
      : timing_(timing), stage_(std::move(stage)), device_(timing.Device()), start_(std::chrono::steady_clock::now()) {}
  ~ScopedStage() {
    const double seconds = Elapsed();
    const kernels::Backend::DeviceTime d = timing_.Device();
    timing_.Add(stage_, seconds, 1, d.dispatch_s - device_.dispatch_s, d.transfer_s - device_.transfer_s);
  }
  double Elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  ScopedStage(const ScopedStage&) = delete;
  ScopedStage& operator=(const ScopedStage&) = delete;

 private:
  Timing& timing_;
  std::string stage_;
  kernels::Backend::DeviceTime device_;
  std::chrono::steady_clock::time_point start_;
};

inline double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace glance
