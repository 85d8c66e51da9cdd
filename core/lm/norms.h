#pragma once
// Row normalisations of the Qwen3.5 language model, f32 (HF modeling_qwen3_5, qwen35.md §2.3,
// §2.7 steps 6 and 8). Header-only: small loops inlined where they are used.
#include <cmath>
#include <cstdint>

#include "kernels/cpu/activations.h"
#include "kernels/cpu/activations_simd.h"

namespace glance::lm {

// Qwen3_5RMSNorm: y = x · rsqrt(mean(x²) + eps) · scale, where scale = 1 + w is precomputed
// at load (HF computes (1.0 + weight.float()) in f32 — the same value). In place allowed.
inline void RmsNormRow(const float* x, int64_t n, const float* scale, float eps, float* y) {
  float ss = 0.0f;
  for (int64_t i = 0; i < n; ++i) ss += x[i] * x[i];
  const float inv = 1.0f / std::sqrt(ss / static_cast<float>(n) + eps);
  for (int64_t i = 0; i < n; ++i) y[i] = (x[i] * inv) * scale[i];
}

// HF l2norm in the gated delta rule: x · rsqrt(Σx² + eps), eps inside the root.
inline void L2NormRow(float* x, int64_t n, float eps) {
  float ss = 0.0f;
  for (int64_t i = 0; i < n; ++i) ss += x[i] * x[i];
  const float inv = 1.0f / std::sqrt(ss + eps);
  for (int64_t i = 0; i < n; ++i) x[i] *= inv;
}

// Qwen3_5RMSNormGated ("norm before gate"): y = w · (x · rsqrt(mean(x²) + eps)) · silu(z);
// the weight is used as is, NOT as 1 + w (qwen35.md §8.1). In place allowed (y == x).
inline void GatedRmsNormRow(const float* x, const float* z, int64_t n, const float* w, float eps,
                            float* y) {
  float ss = 0.0f;
  for (int64_t i = 0; i < n; ++i) ss += x[i] * x[i];
  const float inv = 1.0f / std::sqrt(ss / static_cast<float>(n) + eps);
  for (int64_t i = 0; i < n; ++i) y[i] = w[i] * (x[i] * inv);
  kernels::MulSiluInPlace(y, z, n);
}

}  // namespace glance::lm
