#pragma once
// The projection every layer is made of: y = x · Wᵀ (+ bias), PyTorch nn.Linear convention.
//   x  [n_rows][in]  f32, row-major (n_rows = tokens, or patches)
//   W  [out][in]     stored as F32, BF16 or F16 (later: q8/q4 blocks)
//   y  [n_rows][out] f32
// Accumulation is f32. bf16/f16 weights widen exactly to f32, so the result equals an f32
// matmul over the same values up to summation order.
#include <cstddef>
#include <cstdint>

namespace glance::kernels {

class ThreadPool;

enum class WeightType : uint8_t { F32, BF16, F16 };

struct WeightRef {
  WeightType type = WeightType::F32;
  const void* data = nullptr;  // [rows][cols] in `type`
  int64_t rows = 0;            // out features
  int64_t cols = 0;            // in features

  float at(int64_t r, int64_t c) const;
  // Widens row r into dst[cols].
  void row_to_f32(int64_t r, float* dst) const;
};

// y[i][o] = sum_k x[i][k] * W[o][k] + (bias ? bias[o] : 0). pool may be null (serial).
void Matmul(const float* x, int64_t n_rows, const WeightRef& w, const float* bias, float* y,
            ThreadPool* pool);

// The plain reference: one double-free f32 loop, no threads, no SIMD. Oracle for tests.
void MatmulReference(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                     float* y);

}  // namespace glance::kernels
