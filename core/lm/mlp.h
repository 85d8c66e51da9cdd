#pragma once
// SwiGLU MLP of every decoder layer (qwen35.md §2.4): down(silu(gate(x)) ⊙ up(x)), f32.
#include <cstdint>

#include "core/lm/lm_weights.h"
#include "kernels/backend.h"

namespace glance::kernels {
class ThreadPool;
}

namespace glance::lm {

// x [T][H] -> out [T][H]. pool may be null.
void MlpForward(const MlpWeights& w, const float* x, int64_t T, float* out,
                const kernels::Compute& cx);

}  // namespace glance::lm
