#pragma once
// The NPU backend: kernels::Backend over an NpuDevice (the XRT device or the emulator).
// Per projection it finds the weight's packed copy (WeightSource), checks the device has a
// kernel for the padded shape, then dispatches: a prompt as flm.GEMM dispatches over 256-row
// chunks (up to device.max_chunks() chunks each, the last chunk zero-padded), a token as one
// GEMV. Activations go in as bf16 (round-to-nearest-even, on the host), results come back as bf16 widened
// to f32; a bias (vision tower) is added on the host in f32 — the NPU kernels have none.
// Anything it cannot take (no packed weight, no kernel) the engine runs on the CPU instead.
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernels/backend.h"
#include "kernels/npu/npu_device.h"

namespace glance::kernels::npu {

// Where packed weights come from: a bundle (tensors.bin) or packing at load.
class WeightSource {
 public:
  virtual ~WeightSource() = default;
  // The packed copy of `w`, or nullopt when this source has none (the op then runs on the CPU).
  virtual std::optional<PackedWeight> Find(const WeightRef& w) const = 0;
};

// Packs whatever WeightRef it is asked for, once (the on-the-fly bundle of `--backend npu-emu`).
class PackingWeightSource final : public WeightSource {
 public:
  // Weights packed in flm.GEMM's tile order with its per-shape tile_n, rounded as the kernels
  // that read them round (IRON's pack_b does the same).
  explicit PackingWeightSource(Rounding rounding = Rounding::kConvEven) : rounding_(rounding) {}
  std::optional<PackedWeight> Find(const WeightRef& w) const override;

 private:
  Rounding rounding_;
};

class NpuBackend final : public Backend {
 public:
  NpuBackend(std::unique_ptr<NpuDevice> device, std::unique_ptr<WeightSource> source);
  std::string name() const override { return device_->name(); }
  bool Supports(ProjectionOp op, int64_t n_rows, const WeightRef& w) const override;
  void Project(const float* x, int64_t n_rows, const WeightRef& w, const float* bias, float* y,
               ThreadPool* pool) const override;
  std::vector<KernelStat> Stats() const override;

  // Packs/uploads `w` now instead of at first use (load time). Returns false if unsupported.
  bool Prepare(const WeightRef& w) const { return Handle(w) >= 0; }
  // Dispatches issued so far, in order, as "gemm×2" / "gemv" (for tests of dispatch order).
  std::vector<std::string> DispatchLog() const;
  void set_log_dispatches(bool on) { log_dispatches_ = on; }

 private:
  int Handle(const WeightRef& w) const;  // -1: no packed weight for it
  void Record(const std::string& kernel, double seconds, const std::string& log_entry) const;

  std::unique_ptr<NpuDevice> device_;
  std::unique_ptr<WeightSource> source_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<const void*, int> handles_;  // weight data → device handle / -1
  mutable std::map<std::string, KernelStat> stats_;
  mutable std::vector<std::string> log_;
  bool log_dispatches_ = false;
};

}  // namespace glance::kernels::npu
