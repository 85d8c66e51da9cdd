#pragma once
// Element-wise activations and row operations over whole arrays, f32, SIMD with Highway runtime
// dispatch (the vision tower's non-matmul loops). Each has a scalar *Reference twin built from
// activations.h, the oracle in tests/kernels/test_activations_simd.cpp.
//
// Accuracy against the references (measured there over normal(0, 3) inputs and ±12 sweeps):
//   GeluTanhInPlace    x·sigmoid(2u) with Highway Exp (1 ULP): a few ULP of the result
//   GeluErfInPlace     Abramowitz–Stegun 7.1.26 erf (|err| ≤ 1.5e-7, PyTorch's vectorised
//                      CPU erf uses the same formula): |err| ≤ ~2e-7·max(1, |x|)
//   SoftmaxInPlace     Highway Exp (1 ULP): relative error a few ULP per element
//   LayerNormRows      same formula as LayerNormRow, SIMD summation order
//   Silu / Sigmoid     x / (1 + exp(−x)) and 1 / (1 + exp(−x)) with Highway Exp (1 ULP): a few
//                      ULP of the result (the language model's DeltaNet conv, gated norms and
//                      attention output gates; before issue 31 a scalar expf per element, 3.5 %
//                      of a 2B q4 prefill)
#include <cstdint>

namespace glance::kernels {

// x[i] = gelu_tanh(x[i]) (HF "gelu_pytorch_tanh"), i in [0, n).
void GeluTanhInPlace(float* x, int64_t n);
void GeluTanhInPlaceReference(float* x, int64_t n);

// x[i] = 0.5·x·(1 + erf(x/√2)) (exact gelu), i in [0, n).
void GeluErfInPlace(float* x, int64_t n);
void GeluErfInPlaceReference(float* x, int64_t n);

// x = softmax(scale·x) over x[0..n), numerically stable (max subtracted). scale > 0.
void SoftmaxScaledInPlace(float* x, int64_t n, float scale);
void SoftmaxScaledInPlaceReference(float* x, int64_t n, float scale);

// x[i] = silu(x[i]) = x / (1 + exp(−x)), i in [0, n).
void SiluInPlace(float* x, int64_t n);
void SiluInPlaceReference(float* x, int64_t n);

// y[i] *= silu(z[i]), i in [0, n) (the gated RMSNorm's gate).
void MulSiluInPlace(float* y, const float* z, int64_t n);
void MulSiluInPlaceReference(float* y, const float* z, int64_t n);

// y[i] *= sigmoid(z[i]), i in [0, n) (the gated attention's output gate).
void MulSigmoidInPlace(float* y, const float* z, int64_t n);
void MulSigmoidInPlaceReference(float* y, const float* z, int64_t n);

// y[r] = LayerNorm(x[r]) · w + b for r < rows, rows of length dim (biased variance, like torch).
// b may be null. x and y may be the same array.
void LayerNormRows(const float* x, int64_t rows, int64_t dim, const float* w, const float* b,
                   float eps, float* y);
void LayerNormRowsReference(const float* x, int64_t rows, int64_t dim, const float* w,
                            const float* b, float eps, float* y);

}  // namespace glance::kernels
