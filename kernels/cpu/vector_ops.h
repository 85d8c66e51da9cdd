#pragma once
// Small f32 vector primitives the non-matmul loops of the language model are built from
// (delta rule, attention), SIMD with Highway runtime dispatch. Each has a scalar *Reference
// twin used as the oracle in tests/kernels/test_vector_kernels.cpp.
#include <cstdint>

namespace glance::kernels {

// y[i] += a · x[i], i in [0, n). x and y must not overlap partially.
void Axpy(float a, const float* x, float* y, int64_t n);
void AxpyReference(float a, const float* x, float* y, int64_t n);

// C[i][j] += Σ_{p<k} A[i][p] · B[p][j] for i < m, j < n (row-major, leading dimensions lda,
// ldb, ldc): exactly Axpy(A[i][p], B[p], C[i], n) for p = 0, 1, …, k − 1 on every row — the
// same fused multiply-adds in the same order, so the same bits — but as one call with four
// rows of C held in registers across p (the delta rule's chunk products, issue "CPU speed,
// part 3": tens of thousands of Axpy calls a chunk, each paying a dispatch). C must not
// overlap A or B.
void MatMulAdd(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t m,
               int64_t k, int64_t n);
void MatMulAddReference(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc,
                        int64_t m, int64_t k, int64_t n);

// x[i] *= a.
void Scale(float a, float* x, int64_t n);
void ScaleReference(float a, float* x, int64_t n);

}  // namespace glance::kernels
