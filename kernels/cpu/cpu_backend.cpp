#include "kernels/backend.h"

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

}  // namespace glance::kernels
