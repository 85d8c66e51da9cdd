#pragma once
// Internal to kernels/cpu: the compute-bound GEMM behind Matmul for n_rows >= kPackedGemmMinRows
// (prefill, vision tower), all weight types. Classic packed form (GotoBLAS-style):
//   * W is consumed in panels of NR = 2 SIMD vectors of output features × a K block of 256,
//     widened / dequantized to f32 once per panel and stored k-major ([k][NR]) — the order the
//     micro-kernel reads — then reused by every input row.
//   * The micro-kernel keeps MR = 6 input rows × NR features of f32 accumulators in registers
//     (AVX2: 12 ymm), broadcasting one x value per row and FMA-ing it with two packed W vectors.
//   * Partial sums live in y between K blocks (the first block starts from the bias).
// Numerics: f32 accumulation over the widened weights and the *unquantized* activations, i.e.
// the MatmulReference computation up to summation order (also for Q8/Q4).
#include <cstdint>

#include "kernels/cpu/matmul.h"

namespace glance::kernels::detail {

// Below this many rows the per-panel packing is not amortised; Matmul keeps the older paths.
constexpr int64_t kPackedGemmMinRows = 4;
// Q8/Q4: the int16×int8 madd kernels (gemm_q8/q4.cpp) do 16 MACs per AVX2 instruction against
// 8 for f32 FMA and skip dequantization; measured on AVX2 (2048×2048, 1 thread) they win
// below ~32 rows, tie at 64–128 and lose at 512 (38 vs 65 GFLOP/s). From 64 rows the packed
// path is used: as fast or faster, and its activations are not quantized.
constexpr int64_t kPackedGemmMinRowsQuantized = 64;

// y[i][o] for all n_rows input rows and o in [o_begin, o_end). Any range works; ranges that
// are multiples of 64 features waste no panel padding.
void MatmulPackedRange(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                       float* y, int64_t o_begin, int64_t o_end);

}  // namespace glance::kernels::detail
