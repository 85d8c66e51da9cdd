#include "core/lm/mlp.h"

#include <vector>

#include "kernels/cpu/activations.h"

namespace glance::lm {

void MlpForward(const MlpWeights& w, const float* x, int64_t T, float* out,
                const kernels::Compute& cx) {
  const int64_t I = w.gate_proj.rows;
  std::vector<float> gate(static_cast<size_t>(T * I)), up(gate.size());
  cx.ProjectShared(x, T, {{&w.gate_proj, nullptr, gate.data()}, {&w.up_proj, nullptr, up.data()}});
  for (size_t i = 0; i < gate.size(); ++i) gate[i] = kernels::Silu(gate[i]) * up[i];
  cx.Project(gate.data(), T, w.down_proj, nullptr, out);
}

}  // namespace glance::lm
