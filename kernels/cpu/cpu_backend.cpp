#include "kernels/backend.h"

#include <vector>

namespace glance::kernels {

void CpuBackend::Project(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                         float* y, ThreadPool* pool) const {
  Matmul(x, n_rows, w, bias, y, pool);
}

void Compute::Project(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                      float* y) const {
  if (backend && backend->Supports(OpForRows(n_rows), n_rows, w)) {
    backend->Project(x, n_rows, w, bias, y, pool);
    return;
  }
  Matmul(x, n_rows, w, bias, y, pool);
}

void Compute::ProjectShared(const float* x, int64_t n_rows,
                            std::initializer_list<MatmulOutput> outs) const {
  std::vector<MatmulOutput> cpu;
  cpu.reserve(outs.size());
  for (const MatmulOutput& o : outs) {
    if (backend && backend->Supports(OpForRows(n_rows), n_rows, *o.w)) {
      backend->Project(x, n_rows, *o.w, o.bias, o.y, pool);
    } else {
      cpu.push_back(o);
    }
  }
  MatmulShared(x, n_rows, cpu.data(), cpu.size(), pool);
}

}  // namespace glance::kernels
