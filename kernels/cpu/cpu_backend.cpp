#include "kernels/backend.h"

#include <algorithm>
#include <vector>

#include "kernels/cpu/activations.h"
#include "kernels/cpu/activations_simd.h"
#include "kernels/kernel_error.h"

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

void Backend::ProjectShared(const float* x, int64_t n_rows, const MatmulOutput* outs, size_t count, bool* done,
                            ThreadPool* pool) const {
  for (size_t i = 0; i < count; ++i) {
    done[i] = Supports(OpForRows(n_rows), n_rows, *outs[i].w);
    if (done[i]) Project(x, n_rows, *outs[i].w, outs[i].bias, outs[i].y, pool);
  }
}

void Compute::ProjectShared(const float* x, int64_t n_rows,
                            std::initializer_list<MatmulOutput> outs) const {
  std::vector<MatmulOutput> cpu;
  cpu.reserve(outs.size());
  if (backend) {
    bool done[8] = {};
    if (outs.size() > 8) throw Error("Compute::ProjectShared: at most 8 outputs");
    backend->ProjectShared(x, n_rows, outs.begin(), outs.size(), done, pool);
    size_t i = 0;
    for (const MatmulOutput& o : outs)
      if (!done[i++]) cpu.push_back(o);
  } else {
    cpu.assign(outs.begin(), outs.end());
  }
  MatmulShared(x, n_rows, cpu.data(), cpu.size(), pool);
}

void Compute::SwiGlu(const float* x, int64_t n_rows, const WeightRef& gate, const WeightRef& up, float* act) const {
  if (backend && backend->SwiGlu(x, n_rows, gate, up, act, pool)) return;
  std::vector<float> u(static_cast<size_t>(n_rows * up.rows));
  ProjectShared(x, n_rows, {{&gate, nullptr, act}, {&up, nullptr, u.data()}});
  // act = silu(gate) ⊙ up (the product is the same either way round), vectorised.
  MulSiluInPlace(u.data(), act, static_cast<int64_t>(u.size()));
  std::copy(u.begin(), u.end(), act);
}

}  // namespace glance::kernels
