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

// Below this many rows the per-panel packing is not amortised; Matmul keeps the float GEMV
// (3 rows per weight pass). Measured A/B in one process on the loaded 2-core VM (bf16, one
// thread): 4-8 rows take 2-3.5x longer here than in the GEMV on a 2048x2048 matrix, ~2x on
// 4096x64 (the demo model's head). Below 8 a speculative verify (up to 7 rows) also gets each
// row's one-row sums bit for bit, as the Q8/Q4 kernels below the integer GEMM do.
constexpr int64_t kPackedGemmMinRows = 8;
// Q8/Q4: below this the row-tiled integer kernels run (gemv_int8.h on x86, else the
// int16×int8 madd kernel of gemv_int16.cpp), which skip dequantization. In the kernel alone
// (bench_kernels, 2B shapes, 2 threads) the two tie at 48–80 rows and the packed path leads
// from ~96 (234 vs 197 GFLOP/s at 128 rows, AVX-512); but inside the model the integer path
// was faster at 64 rows (2B-shaped q4 prefill@64: AVX2 33.5 → 46–55 tok/s, AVX-512 47–55 →
// 55–68) and time to first token for image + question (~84 rows) dropped from 3.3 to 2.7 s
// (AVX2) and 2.0 to 1.9 s (AVX-512) with the threshold at 128. At 512 rows packed wins (51 vs
// 40–45 tok/s AVX2, 83–88 vs 48–56 AVX-512).
constexpr int64_t kPackedGemmMinRowsQuantized = 128;

// y[i][o] for all n_rows input rows and o in [o_begin, o_end). Any range works; ranges that
// are multiples of 64 features waste no panel padding.
void GemmPackedRange(const float* x, int64_t n_rows, const WeightRef& w, const float* bias,
                       float* y, int64_t o_begin, int64_t o_end);

}  // namespace glance::kernels::detail
