#pragma once
// The Backend seam (design.md "kernels/npu"): a projection y = x · Wᵀ (+ bias) over a prepared
// weight, the only operation that may run somewhere other than the CPU. The engine asks the
// backend per projection (Supports) and falls back to the CPU per op, so a backend may take
// only the shapes and weights it has kernels for.
//
//   GEMM: n_rows > 1 — a prompt chunk (prefill) or an image's patches (vision tower)
//   GEMV: n_rows == 1 — one generated token (decode)
//
// Thread contract: a Backend is immutable after construction as far as callers can tell;
// Supports/Project may be called from several threads at once (sessions share an Engine).
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "kernels/cpu/matmul.h"

namespace glance::kernels {

class ThreadPool;

enum class ProjectionOp : uint8_t { kGemm, kGemv };

inline ProjectionOp OpForRows(int64_t n_rows) {
  return n_rows == 1 ? ProjectionOp::kGemv : ProjectionOp::kGemm;
}

// Wall time and calls of one kernel, named as in Timing ("npu:gemm", "cpu:fallback").
struct KernelStat {
  std::string name;
  double seconds = 0.0;
  int64_t calls = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Whether Project can take this op for `w` (shape w.rows × w.cols, format w.type) now.
  virtual bool Supports(ProjectionOp op, int64_t n_rows, const WeightRef& w) const = 0;
  // y[n_rows][w.rows] = x[n_rows][w.cols] · Wᵀ + bias (bias may be null). Only called after
  // Supports said yes. pool may be null.
  virtual void Project(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                       float* y, ThreadPool* pool) const = 0;
  // The same x through several weights: sets done[i] for every output it computed; the caller
  // runs the rest on the CPU. Default: each output Supports takes, one Project each. A backend
  // with fused kernels (the NPU's q|k|v|z) dispatches the pieces of one kernel together.
  virtual void ProjectShared(const float* x, int64_t n_rows, const MatmulOutput* outs, size_t count, bool* done,
                             ThreadPool* pool) const;
  // act[n_rows][gate.rows] = silu(x·gateᵀ) ⊙ (x·upᵀ) when this backend computes the MLP's gate and
  // up as one fused kernel (the NPU's g.gu); false: the caller computes it (Compute::SwiGlu).
  virtual bool SwiGlu(const float* /*x*/, int64_t /*n_rows*/, const WeightRef& /*gate*/, const WeightRef& /*up*/,
                      float* /*act*/, ThreadPool* /*pool*/) const {
    return false;
  }
  // Cumulative per-kernel times since construction (empty when the backend records none).
  virtual std::vector<KernelStat> Stats() const { return {}; }
  // Cumulative seconds since construction spent in device dispatches (the kernels' runs) and in
  // moving their data (writes and syncs to the device, syncs and reads back); the rest of a
  // stage is host time. Zero on the CPU. Cheap: stages read it at their start and end.
  struct DeviceTime {
    double dispatch_s = 0.0, transfer_s = 0.0;
  };
  virtual DeviceTime DeviceTotals() const { return {}; }
};

// The CPU: exactly kernels::Matmul, so the reference path stays bit-identical.
class CpuBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  bool Supports(ProjectionOp, int64_t, const WeightRef&) const override { return true; }
  void Project(const float* x, int64_t n_rows, const WeightRef& w, const float* bias, float* y,
               ThreadPool* pool) const override;
};

// What the model code carries instead of a bare ThreadPool*: the backend for projections
// (null = CPU) and the pool for everything (and for CPU projections).
struct Compute {
  const Backend* backend = nullptr;
  ThreadPool* pool = nullptr;

  // Runs the projection on `backend` when it supports it, else kernels::Matmul on the CPU.
  void Project(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
               float* y) const;
  // The same x through several weights: those the backend supports go to it one by one, the
  // rest through kernels::MatmulShared (one thread split for all; results as Project's).
  void ProjectShared(const float* x, int64_t n_rows, std::initializer_list<MatmulOutput> outs) const;
  // The SwiGLU MLP's first half, act [n_rows][gate.rows] = silu(x·gateᵀ) ⊙ (x·upᵀ): the
  // backend's fused kernel when it has one, else gate and up through ProjectShared and the
  // product here (the CPU path, bit for bit what it always was).
  void SwiGlu(const float* x, int64_t n_rows, const WeightRef& gate, const WeightRef& up, float* act) const;
};

}  // namespace glance::kernels
