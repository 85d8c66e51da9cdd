#pragma once
// The NPU's GEMM arithmetic on the CPU (what `--backend npu-emu` computes), and the scalar
// reference it must equal bit for bit.
//
// The AIE2P core multiplies bfp16ebs8 by bfp16ebs8 (IRON: op.py builds flm.GEMM with
// AIE_API_EMULATE_BFLOAT16_MMUL_WITH_BFP16, and aie2p_math_emulation.py `bfp16` says that
// flag converts BOTH operands of a bf16 matmul): the bf16 activations are converted in the core
// to blocks of 8 consecutive k of one row, with the kernel's rounding mode (Rounding::kConvEven
// for kernels built with ROUND_CONV_EVEN, else toward −∞). Each block's 8 products are exact
// (int8 × int8 mantissas), their sum is exact, and it is added to an f32 accumulator in
// ascending k. The result is stored as bf16 with the same rounding mode.
//
// NOT VERIFIED ON A DEVICE: the accumulation order (the mmul sums 8 k at a time per output;
// the order of those block sums across ct_k slices is ascending in flm.GEMM's loop nest) is
// our reading; a device may differ from this emulator in the last bit of some outputs.
#include <cstdint>

#include "kernels/npu/npu_device.h"
#include "kernels/npu/packed_weight.h"

namespace glance::kernels {
class ThreadPool;
}

namespace glance::kernels::npu {

// c[m][n_pad] = bf16(Σ_k a[m][k]·B[k][n]) with a [m][k_pad] bf16 (zero-padded), over any
// packed layout. m may be any count; the caller chunks and pads. Parallel over 8-column groups.
// kSwiGluPairs (npu_device.h): c is [m][n_pad / 2], each output silu(gate)·up of a pair of f32
// accumulators, rounded once (n_pad must be a multiple of 64).
void EmulateGemm(const uint16_t* a, int64_t m, const PackedWeight& w, uint16_t* c, Rounding rounding,
                 ThreadPool* pool, Epilogue epilogue = Epilogue::kNone);

// The scalar reference, from the value rules alone: x [m][k] f32 rounded to bf16 (the host,
// to nearest even), then each 8-block of a row quantized by QuantizeInBlock (bfp16.h); W [n][k]
// quantized the same way; per output the 8-products of each block summed exactly (double)
// (W packed with `rounding` too, as IRON's pack_b does for the kernel it feeds)
// and added to an f32 sum in ascending k; stored as bf16 by `rounding`, widened: y [m][n] f32.
void ReferenceBfpMatmul(const float* x, int64_t m, const float* w, int64_t n, int64_t k, Rounding rounding,
                        float* y);
// The paired SwiGLU epilogue's reference: W [2·I][k] with gate rows and up rows interleaved
// 32 | 32 per 64 (n = 2·I, I % 32 == 0), the same per-output sums as ReferenceBfpMatmul kept in
// f32, y [m][I] = bf16(silu(gate)·up) by `rounding`, widened.
void ReferenceBfpSwiGlu(const float* x, int64_t m, const float* w, int64_t n, int64_t k, Rounding rounding,
                        float* y);

}  // namespace glance::kernels::npu
