#pragma once
// Internal to kernels/cpu: the portable (Highway) kernels Matmul runs below the packed-GEMM
// size (gemm_packed.h) — a GEMV for one activation row, and the same loop row-tiled for a
// few rows. Each computes y[i][o] for every input row i and the output features o in
// [o_begin, o_end), the unit a thread gets. Compiled for every Highway target with runtime
// dispatch. On x86 with AVX2 the quantized formats use gemv_int8.h instead.
#include <cstdint>

#include "kernels/cpu/matmul.h"
#include "kernels/cpu/quant_formats.h"

namespace glance::kernels::detail {

// F32/BF16/F16 weights, f32 activations (gemv_float.cpp): up to 3 rows at a time share each
// weight row's loads (widened in registers); a row's result is bit for bit the one-row result.
void GemvFloatRange(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                    float* y, int64_t o_begin, int64_t o_end);

// Q8 / Q4 weights × int16-quantized activations (gemv_int16.cpp): int16×int8 products summed
// exactly in int32 per block (madd), scaled to f32 per block; up to 4 input rows share each
// weight load. One kernel, a block loader per format.
void GemvInt16Range(const QuantizedActivations& xa, const WeightRef& w, const float* bias,
                    float* y, int64_t o_begin, int64_t o_end);

// W[row] widened to f32 (the Highway loaders of weight_loaders-inl.h; WeightRef::row_to_f32).
void WidenRow(const WeightRef& w, int64_t row, float* dst);

// The Highway target the kernels above dispatch to now (an HWY_* bit), for tests that run
// them on every compiled target (hwy::SetSupportedTargetsForTest).
int64_t DispatchedTarget();

}  // namespace glance::kernels::detail
