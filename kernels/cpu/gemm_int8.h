#pragma once
// The integer GEMM behind Matmul for Q8/Q4 weights and many activation rows (prefill; issue
// "CPU speed, part 2"): activations quantized per block of 32 to int8 by the decode GEMV's
// quantizer (gemv_int8.h QuantizeActivationsInt8, natural order), weights Q8 or Q4, integer
// sums exact in int32 per block, then y += scale_w · scale_x · sum in f32 — the per-block
// scheme of llama.cpp's Q4_0 × Q8_0 dot product (ggml-quants.c, ggml_vec_dot_q4_0_q8_0),
// arranged as a register-blocked GEMM:
//   * Q8 weights are packed per call (Q4 is read from its stored panels directly: RunQ4Direct,
//     below), a panel of P output features × a K block of 16 quant blocks
//     (512 columns) at a time, as [block][group of 4 k][P features][4 bytes]: one vector load
//     gives 4 consecutive k of every feature of the panel, and one broadcast of 4 activation
//     bytes multiplies it (u8 × s8 → int32 per feature lane: vpdpbusd on AVX-512 VNNI /
//     AVX-VNNI, vpmaddubsw + vpmaddwd on AVX2). No horizontal sums: each lane is one feature.
//     (The same feature-major "interleaved" idea as llama.cpp's repacked Q4_0 GEMMs.)
//   * The micro-kernel keeps MR activation rows × P features of int32 block sums and of f32
//     accumulators in registers (AVX-512: 6 × 32; AVX2 / AVX-VNNI: 3 × 16).
//   * vpdpbusd wants unsigned weights: Q4 nibbles are stored as q + 8 already, Q8 bytes are
//     packed as q + 128; Σ (q + c)·x = Σ q·x + c·Σ x, so each block's sum starts from
//     −c·Σx (Int8Activations::offset holds 8·Σx). AVX2 has no unsigned-overflow-free form for
//     Q8 (255·127·2 > int16): it multiplies |q| by sign(q)·x (vpsignb), llama.cpp's trick.
// Numerics: exactly MatmulInt8Reference (the same int8 activations times the dequantized
// weights) up to f32 accumulation order.
//
// x86-64 with AVX2 + FMA only (Int8KernelsAvailable()), on the instruction set the GEMV
// kernels use (SelectInt8KernelIsa for tests); elsewhere Matmul keeps the portable packed f32
// GEMM (gemm_packed.h). Body: gemm_int8_body.inc, compiled and dispatched with the GEMVs'
// bodies in gemv_int8_x86.cpp.
#include <cstdint>

#include "kernels/cpu/gemv_int8.h"
#include "kernels/cpu/matmul.h"

namespace glance::kernels {

// Matmul takes this GEMM for Q8/Q4 weights from this many rows when Int8KernelsActive()
// (below: the row-tiled integer GEMVs of gemv_int8.h). Measured: see kernels/cpu/README.md.
constexpr int64_t kInt8GemmMinRows = 8;
// Tests and benchmarks: the row count from which Matmul takes this GEMM (default
// kInt8GemmMinRows); returns the previous one. Not for use while matmuls run.
int64_t SetInt8GemmMinRows(int64_t rows);
int64_t Int8GemmMinRows();

// Q4 weights with at most this many activation rows skip the per-call packing and are read
// from their stored 16-row panels directly (gemm_int8_body.inc RunQ4Direct; bit-identical
// results; every instruction set). Faster at every row count measured (kernels/cpu/README.md),
// so no limit by default; tests set 0 to run the packed path. Returns the previous limit.
constexpr int64_t kGemmQ4DirectMaxRows = INT64_MAX;
int64_t SetGemmQ4DirectMaxRows(int64_t rows);

// y[i][o] (+ bias[o]) for every row of xa and o in [o_begin, o_end). w: Q8 or Q4; xa with
// w's block count. Requires Int8KernelsAvailable().
void GemmInt8Range(const Int8Activations& xa, const WeightRef& w, const float* bias, float* y,
                   int64_t o_begin, int64_t o_end);

}  // namespace glance::kernels
