#pragma once
// The NPU backend: kernels::Backend over an NpuDevice (the XRT device or the emulator).
// With a dispatch plan (fused_dispatch.h) it runs exactly the fused kernels a real bundle holds:
// a checkpoint projection is found by name in the plan, its bundle tensor(s) dispatched — a
// prompt as flm.GEMM dispatches over 256-row chunks (up to device.max_chunks() chunks each, the
// last chunk zero-padded), a token as GEMVs — and the host does the plan's share: cutting q|k|v|z
// apart, SwiGLU from the raw pairs in decode, summing down's K slices, concatenating the head's
// row blocks. Projections outside the plan (none in a Qwen3.5 bundle but the multi-token head)
// are packed one by one (WeightSource::Find) and dispatched alone under the key `proj`.
// Activations go in as bf16 (round-to-nearest-even, on the host), results come back as bf16
// widened to f32; a bias (vision tower) is added on the host in f32 — the NPU kernels have none.
// Anything it cannot take (no packed weight, no kernel) the engine runs on the CPU instead and
// Stats counts it as "cpu:fallback"; the plan's host-f32 projections count as "host:f32".
// Kernel names in Stats: "npu:gemm.<key>.x<chunks>", "npu:gemv.<key>" (taconite's gemm_key /
// gemv_key), the device's time per dispatch; "host:npu-staging", the host's bf16 conversion of
// each dispatch's input and output, apart from it.
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernels/backend.h"
#include "kernels/npu/fused_dispatch.h"
#include "kernels/npu/npu_device.h"

namespace glance::kernels::npu {

// Where packed weights come from: a bundle (tensors.bin) or packing at load.
class WeightSource {
 public:
  virtual ~WeightSource() = default;
  // The packed copy of `w`, or nullopt when this source has none (the op then runs on the CPU).
  virtual std::optional<PackedWeight> Find(const WeightRef& w) const = 0;
  // A fused bundle tensor by its bundle name (fused_dispatch.h), as the kernels read it; nullopt
  // when this source has none.
  virtual std::optional<PackedWeight> FindTensor(const std::string& /*bundle_tensor*/) const { return std::nullopt; }
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
  // `plan` and `names` (checkpoint weight data → checkpoint tensor name) empty: every
  // projection packed and dispatched alone.
  NpuBackend(std::unique_ptr<NpuDevice> device, std::unique_ptr<WeightSource> source, FusedPlan plan = {},
             std::unordered_map<const void*, std::string> names = {});
  std::string name() const override { return device_->name(); }
  bool Supports(ProjectionOp op, int64_t n_rows, const WeightRef& w) const override;
  void Project(const float* x, int64_t n_rows, const WeightRef& w, const float* bias, float* y,
               ThreadPool* pool) const override;
  // Outputs that are pieces of one fused tensor (q|k|v|z) go out as one dispatch.
  void ProjectShared(const float* x, int64_t n_rows, const MatmulOutput* outs, size_t count, bool* done,
                     ThreadPool* pool) const override;
  bool SwiGlu(const float* x, int64_t n_rows, const WeightRef& gate, const WeightRef& up, float* act,
              ThreadPool* pool) const override;
  std::vector<KernelStat> Stats() const override;
  DeviceTime DeviceTotals() const override;

  // Packs/uploads `w` now instead of at first use (load time). Returns false if unsupported.
  bool Prepare(const WeightRef& w) const { return Handle(w) >= 0; }
  // Dispatches issued so far, in order, as "gemm.<key>.x2" / "gemv.<key>" (tests of dispatch order).
  std::vector<std::string> DispatchLog() const;
  void set_log_dispatches(bool on) { log_dispatches_ = on; }

 private:
  int Handle(const WeightRef& w) const;  // -1: no packed weight for it
  int TensorHandle(const std::string& tensor) const;  // -1: the source has no such tensor
  // The plan's projection computing `w`, when every tensor it needs is there and has a kernel.
  const FusedProjection* Fused(const WeightRef& w, int64_t n_rows) const;
  bool HostF32(const WeightRef& w) const;
  void Record(const std::string& kernel, double seconds, const std::string& log_entry) const;
  // One kernel over rows of x: GEMMs over 256-row chunks when rows > 1 and `gemm_key` is set,
  // else one GEMV a row. Input columns [x_col0, x_col0 + x_cols) of x (row stride x_stride),
  // zero-padded to K; returns [rows][c_cols] f32 (c_cols = N_pad, or N_pad / 2 with the epilogue).
  std::vector<float> Run(int handle, const std::string& gemm_key, const std::string& gemv_key, const float* x,
                         int64_t x_stride, int64_t x_col0, int64_t x_cols, int64_t rows, Epilogue epilogue,
                         int64_t* c_cols, ThreadPool* pool) const;
  // Runs fused projection `p` on x and writes the projections `want` asks for (kSlices;
  // nullptr entries are not wanted) — or, for the others, the one result into y0.
  void RunFused(const FusedProjection& p, const float* x, int64_t n_rows, const std::vector<float*>& want,
                ThreadPool* pool) const;

  std::unique_ptr<NpuDevice> device_;
  std::unique_ptr<WeightSource> source_;
  FusedPlan plan_;
  std::unordered_map<const void*, std::string> names_;
  std::unordered_map<std::string, size_t> by_checkpoint_;  // checkpoint name → plan_.projections index
  std::unordered_map<std::string, bool> host_f32_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<const void*, int> handles_;  // weight data → device handle / -1
  mutable std::unordered_map<std::string, int> tensor_handles_;  // bundle tensor → handle / -1
  mutable std::map<std::string, KernelStat> stats_;
  mutable DeviceTime totals_;  // under mutex_
  mutable std::vector<std::string> log_;
  bool log_dispatches_ = false;
};

}  // namespace glance::kernels::npu
