#include "kernels/npu/npu_backend.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "kernels/cpu/activations.h"
#include "kernels/cpu/numeric.h"
#include "kernels/kernel_error.h"

namespace glance::kernels::npu {

std::optional<PackedWeight> PackingWeightSource::Find(const WeightRef& w) const {
  if (!w.data || w.rows <= 0 || w.cols <= 0) return std::nullopt;
  return PackWeight(w, "projection weight", PackedLayout::kGemmTiles, rounding_);
}

NpuBackend::NpuBackend(std::unique_ptr<NpuDevice> device, std::unique_ptr<WeightSource> source, FusedPlan plan,
                       std::unordered_map<const void*, std::string> names)
    : device_(std::move(device)), source_(std::move(source)), plan_(std::move(plan)), names_(std::move(names)) {
  if (!device_ || !source_) throw Error("NPU backend: a device and a weight source are required");
  for (size_t i = 0; i < plan_.projections.size(); ++i)
    for (const FusedSlice& s : plan_.projections[i].slices) by_checkpoint_[s.checkpoint] = i;
  for (const std::string& n : plan_.host_f32) host_f32_[n] = true;
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

int NpuBackend::TensorHandle(const std::string& tensor) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = tensor_handles_.find(tensor);
  if (it != tensor_handles_.end()) return it->second;
  int h = -1;
  if (std::optional<PackedWeight> p = source_->FindTensor(tensor)) h = device_->UploadWeight(std::move(*p));
  tensor_handles_.emplace(tensor, h);
  return h;
}

const FusedProjection* NpuBackend::Fused(const WeightRef& w, int64_t n_rows) const {
  const auto name = names_.find(w.data);
  if (name == names_.end()) return nullptr;
  const auto it = by_checkpoint_.find(name->second);
  if (it == by_checkpoint_.end()) return nullptr;
  const FusedProjection& p = plan_.projections[it->second];
  const bool gemm = n_rows > 1 && !p.gemm_key.empty();
  if (!gemm && p.gemv_key.empty()) return nullptr;
  for (const std::string& t : p.tensors) {
    const int h = TensorHandle(t);
    if (h < 0) return nullptr;
    const PackedWeight& pw = device_->weight(h);
    if (!device_->HasKernel(gemm ? KernelFamily::kGemm : KernelFamily::kGemv, pw.k_pad, pw.n_pad,
                            gemm ? p.gemm_key : p.gemv_key))
      return nullptr;
  }
  return &p;
}

bool NpuBackend::HostF32(const WeightRef& w) const {
  const auto name = names_.find(w.data);
  return name != names_.end() && host_f32_.count(name->second) != 0;
}

bool NpuBackend::Supports(ProjectionOp op, int64_t n_rows, const WeightRef& w) const {
  if (n_rows < 1) return false;
  if (HostF32(w)) {  // by design, as IRON's runtime does: not a fallback
    Record("host:f32", 0.0, "");
    return false;
  }
  if (const FusedProjection* p = Fused(w, n_rows)) {
    // A prompt's gate or up alone cannot be had: the gu GEMM's epilogue writes SwiGLU.
    if (p->combine == Combine::kSwiGlu && n_rows > 1) {
      Record("cpu:fallback", 0.0, "");
      return false;
    }
    return true;
  }
  if (names_.count(w.data) && by_checkpoint_.count(names_.at(w.data))) {
    Record("cpu:fallback", 0.0, "");  // in the plan, but a tensor or its kernel is missing
    return false;
  }
  const int h = Handle(w);
  if (h < 0) return false;
  const PackedWeight& p = device_->weight(h);
  const KernelFamily f = op == ProjectionOp::kGemv ? KernelFamily::kGemv : KernelFamily::kGemm;
  const bool ok = device_->HasKernel(f, p.k_pad, p.n_pad, "proj");
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

std::vector<float> NpuBackend::Run(int handle, const std::string& gemm_key, const std::string& gemv_key, const float* x,
                                   int64_t x_stride, int64_t x_col0, int64_t x_cols, int64_t n_rows, Epilogue epilogue,
                                   int64_t* c_cols, ThreadPool* pool) const {
  const PackedWeight& p = device_->weight(handle);
  const KernelFamily family = n_rows > 1 && !gemm_key.empty() ? KernelFamily::kGemm : KernelFamily::kGemv;
  if (family == KernelFamily::kGemv) epilogue = Epilogue::kNone;  // GEMVbfp16 has none: raw pairs
  const int64_t cc = epilogue == Epilogue::kSwiGluPairs ? p.n_pad / 2 : p.n_pad;
  *c_cols = cc;
  const int64_t cols = std::min(x_cols, p.k);
  const int64_t step = family == KernelFamily::kGemv ? 1 : device_->max_chunks() * kMChunk;
  std::vector<float> out(static_cast<size_t>(n_rows * cc));
  // Staging buffers live per thread and are reused across calls (sized up, never down), as the
  // XRT device reuses its buffer objects.
  thread_local std::vector<uint16_t> a, c;
  using Clock = std::chrono::steady_clock;
  for (int64_t r0 = 0; r0 < n_rows; r0 += step) {
    const auto h0 = Clock::now();
    const int64_t rows = std::min(step, n_rows - r0);
    const int64_t padded = family == KernelFamily::kGemv ? 1 : RoundUp(rows, kMChunk);
    a.assign(static_cast<size_t>(padded * p.k_pad), 0);  // zero padding: rows and K
    if (c.size() < static_cast<size_t>(padded * cc)) c.resize(static_cast<size_t>(padded * cc));
    for (int64_t r = 0; r < rows; ++r) {
      const float* xr = x + (r0 + r) * x_stride + x_col0;
      for (int64_t k = 0; k < cols; ++k) a[static_cast<size_t>(r * p.k_pad + k)] = f32_to_bf16(xr[k]);
    }
    const double moved0 = device_->TransferSeconds();
    const auto t0 = Clock::now();
    device_->Run(family, handle, a.data(), padded, c.data(), pool, epilogue,
                 family == KernelFamily::kGemm ? gemm_key : gemv_key);
    const auto t1 = Clock::now();
    const std::string key = family == KernelFamily::kGemm ? "gemm." + gemm_key + ".x" + std::to_string(padded / kMChunk)
                                                           : "gemv." + gemv_key;
    // The device's time apart from its data movement (the XRT sequence's writes, syncs, reads),
    // which is its own entry, sync:npu, so each stage splits into dispatch, transfer and host.
    const double moved = device_->TransferSeconds() - moved0;
    const double run_s = std::max(0.0, std::chrono::duration<double>(t1 - t0).count() - moved);
    Record("npu:" + key, run_s, key);
    if (moved > 0) Record("sync:npu", moved, "");
    {
      std::lock_guard<std::mutex> lock(mutex_);
      totals_.dispatch_s += run_s;
      totals_.transfer_s += moved;
    }
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t n = 0; n < cc; ++n)
        out[static_cast<size_t>((r0 + r) * cc + n)] = bf16_to_f32(c[static_cast<size_t>(r * cc + n)]);
    // The host's share of a dispatch, apart from the device's: bf16 staging in and out.
    Record("host:npu-staging",
           std::chrono::duration<double>((t0 - h0) + (Clock::now() - t1)).count(), "");
  }
  return out;
}

void NpuBackend::RunFused(const FusedProjection& p, const float* x, int64_t n_rows, const std::vector<float*>& want,
                          ThreadPool* pool) const {
  int64_t cc = 0;
  switch (p.combine) {
    case Combine::kSlices: {
      const std::vector<float> r = Run(TensorHandle(p.tensors[0]), p.gemm_key, p.gemv_key, x, p.in_cols, 0, p.in_cols,
                                       n_rows, Epilogue::kNone, &cc, pool);
      for (size_t i = 0; i < p.slices.size(); ++i) {
        if (!want[i]) continue;
        const int64_t w = p.slices[i].end - p.slices[i].begin;
        for (int64_t t = 0; t < n_rows; ++t)
          std::copy_n(r.data() + t * cc + p.slices[i].begin, w, want[i] + t * w);
      }
      return;
    }
    case Combine::kSwiGlu: {
      // want[0]: the activation (SwiGlu), or want = {gate, up} raw (decode only, from the pairs).
      const bool act = want.size() == 1;
      // A prompt: the GEMM's paired epilogue writes silu(gate)·up itself.
      const bool epilogue = act && n_rows > 1 && !p.gemm_key.empty() && p.prefill_epilogue == Epilogue::kSwiGluPairs;
      const std::vector<float> r = Run(TensorHandle(p.tensors[0]), p.gemm_key, p.gemv_key, x, p.in_cols, 0, p.in_cols,
                                       n_rows, epilogue ? Epilogue::kSwiGluPairs : Epilogue::kNone, &cc, pool);
      const int64_t I = p.out_cols;
      for (int64_t t = 0; t < n_rows; ++t) {
        const float* row = r.data() + t * cc;
        for (int64_t i = 0; i < I; ++i) {
          if (epilogue) {
            want[0][t * I + i] = row[i];
            continue;
          }
          // The GEMV's raw [32 gate | 32 up] pairs (taconite model.rs decode).
          const float g = row[2 * kPairHalf * (i / kPairHalf) + i % kPairHalf];
          const float u = row[2 * kPairHalf * (i / kPairHalf) + kPairHalf + i % kPairHalf];
          if (act) {
            want[0][t * I + i] = Silu(g) * u;
          } else {
            if (want[0]) want[0][t * I + i] = g;
            if (want[1]) want[1][t * I + i] = u;
          }
        }
      }
      return;
    }
    case Combine::kSumKSlices: {
      float* y = want[0];
      const int64_t D = p.out_cols;
      std::fill_n(y, n_rows * D, 0.0f);
      for (size_t j = 0; j < p.tensors.size(); ++j) {
        const int64_t col0 = static_cast<int64_t>(j) * p.k_slice;
        const std::vector<float> part = Run(TensorHandle(p.tensors[j]), p.gemm_key, p.gemv_key, x, p.in_cols, col0,
                                            std::min(p.k_slice, p.in_cols - col0), n_rows, Epilogue::kNone, &cc, pool);
        for (int64_t t = 0; t < n_rows; ++t)  // partial sums in slice order (taconite: x += p_s)
          for (int64_t n = 0; n < D; ++n) y[t * D + n] += part[static_cast<size_t>(t * cc + n)];
      }
      return;
    }
    case Combine::kRowBlocks: {
      float* y = want[0];
      const int64_t V = p.out_cols;
      int64_t base = 0;
      for (const std::string& t : p.tensors) {
        const int h = TensorHandle(t);
        const int64_t rows_here = std::min(device_->weight(h).n, V - base);
        const std::vector<float> blk = Run(h, "", p.gemv_key, x, p.in_cols, 0, p.in_cols, n_rows, Epilogue::kNone, &cc, pool);
        for (int64_t r = 0; r < n_rows; ++r) std::copy_n(blk.data() + r * cc, rows_here, y + r * V + base);
        base += rows_here;
      }
      return;
    }
  }
}

void NpuBackend::Project(const float* x, int64_t n_rows, const WeightRef& w, const float* bias, float* y,
                         ThreadPool* pool) const {
  if (const FusedProjection* p = Fused(w, n_rows)) {
    std::vector<float*> want(p->slices.size(), nullptr);
    if (p->combine == Combine::kSwiGlu && w.rows != p->out_cols)
      throw Error("NPU backend: gate/up is " + std::to_string(w.rows) + " rows, the plan's " + std::to_string(p->out_cols));
    for (size_t i = 0; i < p->slices.size(); ++i)
      if (names_.at(w.data) == p->slices[i].checkpoint) want[i] = y;
    RunFused(*p, x, n_rows, want, pool);
    if (bias)
      for (int64_t t = 0; t < n_rows; ++t)
        for (int64_t n = 0; n < w.rows; ++n) y[t * w.rows + n] += bias[n];
    return;
  }
  const int h = Handle(w);
  if (h < 0) throw Error("NPU backend: no packed weight for this projection (call Supports first)");
  const PackedWeight& p = device_->weight(h);
  int64_t cc = 0;
  const std::vector<float> r = Run(h, "proj", "proj", x, p.k, 0, p.k, n_rows, Epilogue::kNone, &cc, pool);
  for (int64_t t = 0; t < n_rows; ++t)
    for (int64_t n = 0; n < p.n; ++n) {
      const float v = r[static_cast<size_t>(t * cc + n)];
      y[t * p.n + n] = bias ? v + bias[n] : v;
    }
}

void NpuBackend::ProjectShared(const float* x, int64_t n_rows, const MatmulOutput* outs, size_t count, bool* done,
                               ThreadPool* pool) const {
  // Pieces of one fused tensor: one dispatch for all of them.
  std::map<const FusedProjection*, std::vector<size_t>> groups;
  for (size_t i = 0; i < count; ++i) {
    done[i] = false;
    const FusedProjection* p = Fused(*outs[i].w, n_rows);
    if (p && !outs[i].bias && (p->combine == Combine::kSlices || (p->combine == Combine::kSwiGlu && n_rows == 1)))
      groups[p].push_back(i);
  }
  for (const auto& [p, members] : groups) {
    std::vector<float*> want(p->slices.size(), nullptr);
    for (const size_t i : members)
      for (size_t s = 0; s < p->slices.size(); ++s)
        if (names_.at(outs[i].w->data) == p->slices[s].checkpoint) want[s] = outs[i].y;
    RunFused(*p, x, n_rows, want, pool);
    for (const size_t i : members) done[i] = true;
  }
  for (size_t i = 0; i < count; ++i) {
    if (done[i]) continue;
    if (Supports(OpForRows(n_rows), n_rows, *outs[i].w)) {
      Project(x, n_rows, *outs[i].w, outs[i].bias, outs[i].y, pool);
      done[i] = true;
    }
  }
}

bool NpuBackend::SwiGlu(const float* x, int64_t n_rows, const WeightRef& gate, const WeightRef& up, float* act,
                        ThreadPool* pool) const {
  const FusedProjection* p = Fused(gate, n_rows);
  if (!p || p->combine != Combine::kSwiGlu || Fused(up, n_rows) != p || p->slices.size() != 2 ||
      names_.at(gate.data) != p->slices[0].checkpoint || names_.at(up.data) != p->slices[1].checkpoint) {
    if (p || (names_.count(gate.data) && by_checkpoint_.count(names_.at(gate.data)))) Record("cpu:fallback", 0.0, "");
    return false;
  }
  RunFused(*p, x, n_rows, {act}, pool);
  return true;
}

std::vector<KernelStat> NpuBackend::Stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<KernelStat> out;
  for (const auto& [name, s] : stats_) out.push_back(s);
  return out;
}

Backend::DeviceTime NpuBackend::DeviceTotals() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return totals_;
}

std::vector<std::string> NpuBackend::DispatchLog() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return log_;
}

}  // namespace glance::kernels::npu
