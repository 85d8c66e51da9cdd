#pragma once
// Q4 matmul with int8 activations on x86 — the decode path (issue "CPU speed": the 4-bit
// GEMV must stream weights at memory speed). Activations are quantized per block of 32 to
// int8 (scale = max|x| / 127, round half to even), the way llama.cpp's Q8_0 activations are,
// so one u8×s8 multiply-add instruction does 32 products per 256-bit register:
//   AVX2:          vpmaddubsw + vpmaddwd (u8·s8 pairs → int16 → int32; no overflow: a pair
//                  sum is ≤ 2·15·127)
//   AVX-512 VNNI / AVX-VNNI: vpdpbusd (the same sums in one instruction; 512-bit registers
//                  with AVX-512)
// Q4 nibbles are unsigned (q + 8), so Σ q·x = Σ nibble·x − 8·Σ x: the 8·Σx of each activation
// block is computed once when quantizing (Int8Activations::offset). Q4 matrices are stored in
// panels of 16 rows, a block's dwords interleaved across the panel's rows (weight_panels.h), so
// that a register's int32 lanes are 16 rows' sums of one block: per block,
// y_row += (scale_w,row · scale_x) · (integer dot − offset), accumulated in f32, for 16 rows at
// once.
//
// Q8 weights keep the int16-activation kernels: int8 activations cost Q8 accuracy on the
// golden (teacher-forced greedy 20/24 instead of 22/24 vs f32) for ≈ 15% GEMV speed, and the
// q8 precision exists for accuracy. Q4's own rounding error is ~30× the int8 activations'.
//
// Decode (one activation row) and the speculative verify (2–7 rows) run one tiled kernel per
// format: W panels of 16 weight rows, each from a different part of the thread's
// rows, times up to 4 activation rows. W streams in flight because one sequential stream per core is
// latency-bound (read-only test here: 33 GB/s on two cores with one stream each, 53 GB/s with
// four); each weight load shared by the activation rows. Per (weight row, activation row) the
// arithmetic does not depend on the tile, so row i of a multi-row call equals the one-row
// call on row i bit for bit (speculative greedy decoding relies on it).
//
// Only x86-64 with AVX2 + FMA: Int8KernelsAvailable() is false elsewhere and Matmul keeps
// the portable int16 Highway kernel (gemv_kernels.h GemvInt16Range). The scalar oracle for
// these kernels is MatmulInt8Reference (same int8 activations, exact integer sums in double).
#include <cstdint>
#include <vector>

#include "kernels/cpu/matmul.h"
#include "kernels/cpu/quant_formats.h"

namespace glance::kernels {

struct Int8Activations {
  int64_t n_rows = 0, blocks = 0;
  std::vector<int8_t> q;       // [n_rows][blocks·32], zero-padded
  std::vector<float> scale;    // [n_rows][blocks]
  std::vector<float> offset;   // [n_rows][blocks]: 8 · Σ q over the block (exact in f32)
};

// Portable; vectorised where the CPU allows. What both the Q4 GEMV and the integer GEMM take.
void QuantizeActivationsInt8(const float* x, int64_t n_rows, int64_t cols, Int8Activations* out);

// The CPU and the build support the int8 kernels (x86-64, AVX2 + FMA).
bool Int8KernelsAvailable();
// "avx512-vnni", "avx2" or "none": which instruction set the kernels below use.
const char* Int8KernelName();
// Tests and benchmarks: run the kernels of a lesser instruction set this CPU also has
// ("avx2", "avx-vnni", "avx512-vnni"); false (nothing changed) if it lacks it. "" = best.
bool SelectInt8KernelIsa(const char* name);
// Tests and benchmarks: turn the int8 path off (Matmul then uses the int16 kernels) or back
// on. Returns the previous setting. Not for use while matmuls run on other threads.
bool SetInt8KernelsEnabled(bool enabled);
// Int8KernelsAvailable() and not disabled: what Matmul uses for Q4 below the GEMM size.
bool Int8KernelsActive();

// y[i][o] (+ bias[o]) for every input row i and o in [o_begin, o_end). w: Q4.
// Requires Int8KernelsAvailable().
void GemvQ4Int8Range(const Int8Activations& xa, const WeightRef& w, const float* bias, float* y,
                     int64_t o_begin, int64_t o_end);

// The same for Q6 weights (quant_formats.h; the 4-bit models' LM head): the Q4 kernel with the
// top two bits of each weight OR'd in, u = q + 32, so the block's offset is 32·Σx = 4·offset.
void GemvQ6Int8Range(const Int8Activations& xa, const WeightRef& w, const float* bias, float* y,
                     int64_t o_begin, int64_t o_end);

// Q8 weights × int16 activations (quant_formats.h QuantizedActivations) on the Q8 panel layout
// (weight_panels.h: a register's int32 lanes are 16 rows' sums of one block): the same exact
// per-block integer sums as the portable kernel (gemv_kernels.h GemvInt16Range), with AVX-512
// VNNI vpdpwssd on 512-bit registers or vpmaddwd on 256-bit ones, a block's scales applied to
// 16 rows with one multiply-add per activation row.
// Requires Int8KernelsAvailable(); Matmul uses it for Q8 when Int8KernelsActive().
void GemvQ8Int16Range(const QuantizedActivations& xa, const WeightRef& w, const float* bias,
                        float* y, int64_t o_begin, int64_t o_end);

// Scalar oracle of every int8-activation kernel (this GEMV and the GEMM of gemm_int8.h): the
// same int8 activations times the dequantized weights (any format, via
// WeightRef::at), summed in double.
void MatmulInt8Reference(const Int8Activations& xa, const WeightRef& w, const float* bias,
                         float* y);
// The same for int16 activations: the oracle of GemvQ8Int16Range and of the portable
// GemvInt16Range (gemv_kernels.h).
void MatmulInt16Reference(const QuantizedActivations& xa, const WeightRef& w, const float* bias,
                          float* y);

}  // namespace glance::kernels
