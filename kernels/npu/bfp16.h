#pragma once
// bfp16ebs8, the block format AMD's XDNA2 (AIE2P) NPU multiplies in: 8 values share one
// exponent byte. Written from the layout and arithmetic IRON documents (amd/IRON,
// iron/operators/flm/packing.py `f32_to_bfp16ebs8`, which matches the core's to_v64bfp16ebs8):
//
//   block = [E, m0, m1, ..., m7]     9 bytes: the shared exponent byte FIRST, then 8 int8
//   value[i] = m_i · 2^(E − 133)     (133 = 127 + 6: a 7-bit magnitude plus the sign)
//
// E is the largest IEEE biased exponent among the 8 values. Each mantissa is the value's
// 24-bit significand (implicit bit made explicit) shifted right by 17 + (E − e_i), signed:
//   * Rounding::kConvEven — the shift rounds to nearest, ties to even (kernels built with
//     ROUND_CONV_EVEN, IRON's default);
//   * Rounding::kFloor    — the shift is arithmetic, i.e. toward −∞ (the core's power-up mode);
//   * an element 32 or more binades below the block max becomes 0, or −1 when negative;
//   * a mantissa that rounds to 128 saturates to 127 (−129 to −128): E is never bumped.
#include <cstdint>

namespace glance::kernels::npu {

enum class Rounding : uint8_t { kConvEven, kFloor };
const char* RoundingName(Rounding r);  // "conv_even" / "floor" (the bundle spelling)

inline constexpr int kBfpGroup = 8;       // values per block
inline constexpr int kBfpBlockBytes = 9;  // 1 exponent + 8 mantissas

// The 8 values `in` as one block (out[0] exponent, out[1..8] mantissas). Non-finite input
// is the caller's to refuse (weights) or is encoded by the same bit rules (activations).
void EncodeBlock(const float* in, uint8_t* out, Rounding rounding = Rounding::kConvEven);
// The 8 values a block stands for (exact in f32).
void DecodeBlock(const uint8_t* block, float* out);

// The scalar definition, written from the value rule above rather than from the bit
// manipulation (the test oracle): the value v becomes in a block whose largest biased
// exponent is `block_exponent`. Defined for normal (or zero) v.
float QuantizeInBlock(float v, int block_exponent, Rounding rounding);
// The IEEE biased exponent of f (0 for zero and subnormals).
int BiasedExponent(float f);

// f32 → bf16 bits: to nearest even (the host; kConvEven kernels) or toward −∞ (kFloor).
uint16_t F32ToBf16(float f, Rounding rounding);

}  // namespace glance::kernels::npu
