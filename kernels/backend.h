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
  // Cumulative per-kernel times since construction (empty when the backend records none).
  virtual std::vector<KernelStat> Stats() const { return {}; }
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
};

}  // namespace glance::kernels
