#pragma once
// The projection every layer is made of: y = x · Wᵀ (+ bias), PyTorch nn.Linear convention.
//   x  [n_rows][in]  f32, row-major (n_rows = tokens, or patches)
//   W  [out][in]     stored as F32, BF16, F16 (mmapped checkpoint data) or in a block-quantized
//                    format Q8 / Q4 (quant_formats.h: prepared at load, or repacked from a
//                    compressed-tensors int4 checkpoint)
//   y  [n_rows][out] f32
// Accumulation is f32. bf16/f16 weights widen exactly to f32, so the result equals an f32
// matmul over the same values up to summation order. For Q8/Q4 the activations are quantized
// per block of 32 — on x86 with AVX2 to int8 (gemv_int8.h; error ≤ 1/254 of the block's max
// |x|) for Q4 at any row count and for Q8 from 8 rows (the integer GEMM, gemm_int8.h), else to
// int16 (≤ 2^-16) — and the products are summed exactly in int32 per block, so the result is
// the matmul over the *dequantized* weights up to that activation rounding; without the x86
// kernels, from 128 rows the packed GEMM uses the f32 activations with weight panels
// dequantized once.
//
// Kernels (which one runs for which rows and format: kernels/cpu/README.md): few rows take a
// memory-bound GEMV (each weight byte read once, converted in registers; gemv_kernels.h and
// the x86 integer kernels of gemv_int8.h); many rows a register-blocked GEMM (gemm_packed.h:
// f32 panels, 6-row micro-kernel, from 8 rows for float weights; gemm_int8.h: int8 panels for
// Q8/Q4 on x86 from 8 rows). Below the GEMM sizes a row's result does not depend on the
// call's row count: row i equals the one-row call on row i bit for bit (the speculative
// verify relies on it; tests/kernels/test_gemv_rows.cpp). All use runtime dispatch (Highway: the best of SSE4/AVX2/AVX-512
// the CPU has; the x86 integer kernels their own); MatmulReference is the scalar oracle for all
// types.
#include <cstddef>
#include <cstdint>
#include <memory>

namespace glance::kernels {

class ThreadPool;

// (Values are stored in weight caches: append, never reorder.)
enum class WeightType : uint8_t { F32, BF16, F16, Q8, Q4, Q6 };

const char* WeightTypeName(WeightType t);

struct WeightRef {
  WeightType type = WeightType::F32;
  // F32/BF16/F16: [rows][cols] in `type`.
  // Q8: rows·blocks·32 int8; Q4: rows·blocks·16 bytes; Q6: rows·blocks·24 bytes (in panels of
  // 16 rows: weight_panels.h).
  const void* data = nullptr;
  int64_t rows = 0;  // out features
  int64_t cols = 0;  // in features
  // Q8: rows·blocks float; Q4, Q6: rows·blocks bf16 bits (uint16), in the same panels. Unused otherwise.
  const void* scales = nullptr;
  // Keeps prepared storage (quantized copies, a cache mapping) alive while any ref to it
  // exists; empty for refs into the checkpoint's own mapping.
  std::shared_ptr<const void> owner = nullptr;

  bool quantized() const { return type == WeightType::Q8 || type == WeightType::Q4 || type == WeightType::Q6; }
  // Quant blocks per row (ceil(cols / 32)); rows are zero-padded to whole blocks.
  int64_t blocks() const { return (cols + 31) / 32; }

  float at(int64_t r, int64_t c) const;
  // Widens (dequantizes) row r into dst[cols].
  void row_to_f32(int64_t r, float* dst) const;
};

// y[i][o] = sum_k x[i][k] * W[o][k] + (bias ? bias[o] : 0). pool may be null (serial).
void Matmul(const float* x, int64_t n_rows, const WeightRef& w, const float* bias, float* y,
            ThreadPool* pool);

// One output of MatmulShared: y = x · Wᵀ (+ bias) for one weight.
struct MatmulOutput {
  const WeightRef* w = nullptr;
  const float* bias = nullptr;
  float* y = nullptr;
};

// The same x through several weights (a layer's q/k/v, or gate/up): below the GEMM size the
// activations are quantized once per format and all the weights' rows are split across the
// threads in one ParallelFor, so decode pays one thread-pool round trip (and one wait for the
// slower thread) per group instead of per matrix. Every y equals what Matmul gives, bit for
// bit. All weights must have the same cols.
void MatmulShared(const float* x, int64_t n_rows, const MatmulOutput* outs, size_t n_outs,
                  ThreadPool* pool);

// The plain reference: one f32 loop over W.at() (dequantized weights, unquantized
// activations), no threads, no SIMD. Oracle for tests.
void MatmulReference(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                     float* y);

}  // namespace glance::kernels
