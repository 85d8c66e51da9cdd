#pragma once
// Named stages in first-seen order, each with wall time and call count (gemma.cpp TimingInfo).
// A Timing belongs to one turn of one session: not thread-safe.
#include <chrono>
#include <string>
#include <vector>

#include "core/engine/events.h"

namespace glance {

class Timing {
 public:
  void Add(const std::string& stage, double seconds, int64_t calls = 1);
  double Seconds(const std::string& stage) const;
  const std::vector<StageTime>& stages() const { return stages_; }
  void Clear() { stages_.clear(); }

 private:
  std::vector<StageTime> stages_;
};

// Adds the elapsed time to `stage` when it goes out of scope.
class ScopedStage {
 public:
  ScopedStage(Timing& timing, std::string stage)
      : timing_(timing), stage_(std::move(stage)), start_(std::chrono::steady_clock::now()) {}
  ~ScopedStage() { timing_.Add(stage_, Elapsed()); }
  double Elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  ScopedStage(const ScopedStage&) = delete;
  ScopedStage& operator=(const ScopedStage&) = delete;

 private:
  Timing& timing_;
  std::string stage_;
  std::chrono::steady_clock::time_point start_;
};

inline double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace glance
