#pragma once
// Small f32 vector primitives the non-matmul loops of the language model are built from
// (delta rule, attention), SIMD with Highway runtime dispatch. Each has a scalar *Reference
// twin used as the oracle in tests/kernels/test_vector_kernels.cpp.
#include <cstdint>

namespace glance::kernels {

// y[i] += a · x[i], i in [0, n). x and y must not overlap partially.
void Axpy(float a, const float* x, float* y, int64_t n);
void AxpyReference(float a, const float* x, float* y, int64_t n);

// x[i] *= a.
void Scale(float a, float* x, int64_t n);
void ScaleReference(float a, float* x, int64_t n);

}  // namespace glance::kernels
