#include "core/lm/mlp.h"

#include <vector>


namespace glance::lm {

void MlpForward(const MlpWeights& w, const float* x, int64_t T, float* out,
                const kernels::Compute& cx) {
  const int64_t I = w.gate_proj.rows;
  std::vector<float> act(static_cast<size_t>(T * I));
  // silu(gate) ⊙ up: on the CPU as always, or the NPU's fused g.gu kernel (its paired epilogue
  // in a prompt, the host from the raw pairs for a token).
  cx.SwiGlu(x, T, w.gate_proj, w.up_proj, act.data());
  cx.Project(act.data(), T, w.down_proj, nullptr, out);
}

}  // namespace glance::lm
