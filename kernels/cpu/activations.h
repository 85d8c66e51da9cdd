#pragma once
// Element-wise activations and row operations in f32, written to match PyTorch's definitions.
// Header-only: small, inlined into the loops that use them.
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace glance::kernels {

inline float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
inline float Silu(float x) { return x / (1.0f + std::exp(-x)); }

// torch.nn.functional.softplus(beta=1, threshold=20).
inline float Softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

// gelu(approximate="tanh") — HF "gelu_pytorch_tanh".
inline float GeluTanh(float x) {
  constexpr float kAlpha = 0.7978845608028654f;  // sqrt(2/pi)
  return 0.5f * x * (1.0f + std::tanh(kAlpha * (x + 0.044715f * x * x * x)));
}

// Exact gelu: 0.5 x (1 + erf(x / sqrt 2)).
inline float GeluErf(float x) { return 0.5f * x * (1.0f + std::erf(x * 0.7071067811865476f)); }

// In-place numerically stable softmax over x[0..n).
inline void SoftmaxInPlace(float* x, int64_t n) {
  if (n <= 0) return;
  float m = x[0];
  for (int64_t i = 1; i < n; ++i) m = std::max(m, x[i]);
  float s = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - m);
    s += x[i];
  }
  const float inv = 1.0f / s;
  for (int64_t i = 0; i < n; ++i) x[i] *= inv;
}

// LayerNorm over one row (biased variance, like torch): y = (x - mean)/sqrt(var + eps) * w + b.
inline void LayerNormRow(const float* x, int64_t n, const float* w, const float* b, float eps,
                         float* y) {
  float mean = 0.0f;
  for (int64_t i = 0; i < n; ++i) mean += x[i];
  mean /= static_cast<float>(n);
  float var = 0.0f;
  for (int64_t i = 0; i < n; ++i) var += (x[i] - mean) * (x[i] - mean);
  var /= static_cast<float>(n);
  const float inv = 1.0f / std::sqrt(var + eps);
  for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * inv * w[i] + (b ? b[i] : 0.0f);
}

}  // namespace glance::kernels
