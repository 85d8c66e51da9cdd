#pragma once
// Internal to kernels/cpu: the per-weight-type SIMD kernels Matmul dispatches to. Each
// computes y[i][o] for every input row i and the output features o in [o_begin, o_end) —
// the unit a thread gets. One translation unit per format (gemm_float.cpp, gemm_q8.cpp,
// gemm_q4.cpp), each compiled for every Highway target with runtime dispatch.
#include <cstdint>

#include "kernels/cpu/matmul.h"
#include "kernels/cpu/quant_formats.h"

namespace glance::kernels::detail {

// F32/BF16/F16. n_rows == 1: GEMV converting weights in registers. n_rows > 1: a panel of
// weight rows widened to f32 once, then 4×2 register tiles (4 input rows × 2 features).
void MatmulFloatRange(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                      float* y, int64_t o_begin, int64_t o_end);

// Q8 / Q4 with int16-quantized activations: int16×int8 products summed exactly in int32 per
// block (madd), scaled to f32 per block; up to 4 input rows share each weight load.
void MatmulQ8Range(const QuantizedActivations& xa, const WeightRef& w, const float* bias,
                   float* y, int64_t o_begin, int64_t o_end);
void MatmulQ4Range(const QuantizedActivations& xa, const WeightRef& w, const float* bias,
                   float* y, int64_t o_begin, int64_t o_end);

}  // namespace glance::kernels::detail
