#include "kernels/cpu/matmul.h"

#include <algorithm>
#include <vector>

#include "kernels/cpu/dot.h"
#include "kernels/cpu/numeric.h"
#include "kernels/cpu/thread_pool.h"

namespace glance::kernels {

float WeightRef::at(int64_t r, int64_t c) const {
  const size_t i = static_cast<size_t>(r * cols + c);
  switch (type) {
    case WeightType::F32: return static_cast<const float*>(data)[i];
    case WeightType::BF16: return bf16_to_f32(static_cast<const uint16_t*>(data)[i]);
    case WeightType::F16: return f16_to_f32(static_cast<const uint16_t*>(data)[i]);
  }
  return 0.0f;
}

void WeightRef::row_to_f32(int64_t r, float* dst) const {
  const size_t off = static_cast<size_t>(r * cols);
  switch (type) {
    case WeightType::F32:
      std::copy_n(static_cast<const float*>(data) + off, cols, dst);
      return;
    case WeightType::BF16: {
      const uint16_t* src = static_cast<const uint16_t*>(data) + off;
      for (int64_t c = 0; c < cols; ++c) dst[c] = bf16_to_f32(src[c]);
      return;
    }
    case WeightType::F16: {
      const uint16_t* src = static_cast<const uint16_t*>(data) + off;
      for (int64_t c = 0; c < cols; ++c) dst[c] = f16_to_f32(src[c]);
      return;
    }
  }
}

void MatmulReference(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                     float* y) {
  for (int64_t i = 0; i < n_rows; ++i) {
    for (int64_t o = 0; o < w.rows; ++o) {
      float acc = 0.0f;
      for (int64_t k = 0; k < w.cols; ++k) acc += x[i * w.cols + k] * w.at(o, k);
      y[i * w.rows + o] = acc + (bias ? bias[o] : 0.0f);
    }
  }
}

void Matmul(const float* x, int64_t n_rows, const WeightRef& w, const float* bias, float* y,
            ThreadPool* pool) {
  const int64_t in = w.cols, out = w.rows;
  // Output features are split across threads; each thread widens a weight row once and
  // reuses it for every input row (the weight is streamed exactly once).
  auto body = [&](size_t begin, size_t end) {
    std::vector<float> wrow(static_cast<size_t>(in));
    for (size_t o = begin; o < end; ++o) {
      const float* wr;
      if (w.type == WeightType::F32) {
        wr = static_cast<const float*>(w.data) + o * static_cast<size_t>(in);
      } else {
        w.row_to_f32(static_cast<int64_t>(o), wrow.data());
        wr = wrow.data();
      }
      const float b = bias ? bias[o] : 0.0f;
      for (int64_t i = 0; i < n_rows; ++i)
        y[i * out + static_cast<int64_t>(o)] = DotF32(x + i * in, wr, in) + b;
    }
  };
  if (pool) {
    pool->ParallelFor(static_cast<size_t>(out), body, 16);
  } else {
    body(0, static_cast<size_t>(out));
  }
}

}  // namespace glance::kernels
