#include "kernels/npu/npu_backend.h"

#include <algorithm>
#include <chrono>

#include "kernels/cpu/numeric.h"
#include "kernels/kernel_error.h"

namespace glance::kernels::npu {

std::optional<PackedWeight> PackingWeightSource::Find(const WeightRef& w) const {
  if (!w.data || w.rows <= 0 || w.cols <= 0) return std::nullopt;
  return PackWeight(w, "projection weight", PackedLayout::kGemmTiles, rounding_);
}

NpuBackend::NpuBackend(std::unique_ptr<NpuDevice> device, std::unique_ptr<WeightSource> source)
    : device_(std::move(device)), source_(std::move(source)) {
  if (!device_ || !source_) throw Error("NPU backend: a device and a weight source are required");
}

int NpuBackend::Handle(const WeightRef& w) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = handles_.find(w.data);
  if (it != handles_.end()) return it->second;
  int h = -1;
  if (std::optional<PackedWeight> p = source_->Find(w)) {
    if (p->n != w.rows || p->k != w.cols)
      throw Error("NPU backend: packed weight is " + std::to_string(p->n) + "×" +
                  std::to_string(p->k) + " but the model's is " + std::to_string(w.rows) + "×" +
                  std::to_string(w.cols) + " (bundle exported from another checkpoint?)");
    h = device_->UploadWeight(std::move(*p));
  }
  handles_.emplace(w.data, h);
  return h;
}

bool NpuBackend::Supports(ProjectionOp op, int64_t n_rows, const WeightRef& w) const {
  if (n_rows < 1) return false;
  const int h = Handle(w);
  if (h < 0) return false;
  const PackedWeight& p = device_->weight(h);
  const KernelFamily f = op == ProjectionOp::kGemv ? KernelFamily::kGemv : KernelFamily::kGemm;
  const bool ok = device_->HasKernel(f, p.k_pad, p.n_pad);
  if (!ok) Record("cpu:fallback", 0.0, "");
  return ok;
}

void NpuBackend::Record(const std::string& kernel, double seconds, const std::string& log_entry) const {
  std::lock_guard<std::mutex> lock(mutex_);
  KernelStat& s = stats_[kernel];
  s.name = kernel;
  s.seconds += seconds;
  s.calls += 1;
  if (log_dispatches_ && !log_entry.empty()) log_.push_back(log_entry);
}

void NpuBackend::Project(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                         float* y, ThreadPool* pool) const {
  const int h = Handle(w);
  if (h < 0) throw Error("NPU backend: no packed weight for this projection (call Supports first)");
  const PackedWeight& p = device_->weight(h);
  const KernelFamily family = n_rows == 1 ? KernelFamily::kGemv : KernelFamily::kGemm;
  const int64_t step = family == KernelFamily::kGemv ? 1 : device_->max_chunks() * kMChunk;
  // Staging buffers live per thread and are reused across calls (sized up, never down),
  // as the XRT device reuses its buffer objects.
  thread_local std::vector<uint16_t> a, c;
  for (int64_t r0 = 0; r0 < n_rows; r0 += step) {
    const int64_t rows = std::min(step, n_rows - r0);
    const int64_t padded = family == KernelFamily::kGemv ? 1 : RoundUp(rows, kMChunk);
    a.assign(static_cast<size_t>(padded * p.k_pad), 0);  // zero padding: rows and K
    if (c.size() < static_cast<size_t>(padded * p.n_pad)) c.resize(static_cast<size_t>(padded * p.n_pad));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < p.k; ++k)
        a[static_cast<size_t>(r * p.k_pad + k)] = f32_to_bf16(x[(r0 + r) * p.k + k]);
    const auto t0 = std::chrono::steady_clock::now();
    const char* kernel = device_->Run(family, h, a.data(), padded, c.data(), pool);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    Record(std::string("npu:") + kernel, s,
           std::string(kernel) + (family == KernelFamily::kGemm ? "×" + std::to_string(padded / kMChunk) : ""));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t n = 0; n < p.n; ++n) {
        const float v = bf16_to_f32(c[static_cast<size_t>(r * p.n_pad + n)]);
        y[(r0 + r) * p.n + n] = bias ? v + bias[n] : v;
      }
  }
}

std::vector<KernelStat> NpuBackend::Stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<KernelStat> out;
  for (const auto& [name, s] : stats_) out.push_back(s);
  return out;
}

std::vector<std::string> NpuBackend::DispatchLog() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return log_;
}

}  // namespace glance::kernels::npu
