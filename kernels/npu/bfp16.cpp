#include "kernels/npu/bfp16.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/cpu/numeric.h"

namespace glance::kernels::npu {

const char* RoundingName(Rounding r) { return r == Rounding::kConvEven ? "conv_even" : "floor"; }

static uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

int BiasedExponent(float f) { return static_cast<int>((Bits(f) >> 23) & 0xffu); }

void EncodeBlock(const float* in, uint8_t* out, Rounding rounding) {
  int exps[kBfpGroup];
  int64_t mags[kBfpGroup];
  bool neg[kBfpGroup];
  int max_exp = 0;
  for (int i = 0; i < kBfpGroup; ++i) {
    const uint32_t u = Bits(in[i]);
    exps[i] = static_cast<int>((u >> 23) & 0xffu);
    uint32_t man = u & 0x007fffffu;
    if (exps[i] != 0) man |= 0x00800000u;  // the implicit bit, for normal numbers
    neg[i] = (u >> 31) != 0;
    mags[i] = neg[i] ? -static_cast<int64_t>(man) : static_cast<int64_t>(man);
    max_exp = std::max(max_exp, exps[i]);
  }
  out[0] = static_cast<uint8_t>(max_exp);
  for (int i = 0; i < kBfpGroup; ++i) {
    const int shift = max_exp - exps[i];
    const int total = std::clamp(17 + shift, 0, 62);
    int64_t m;
    if (shift >= 32) {
      m = neg[i] ? -1 : 0;
    } else if (rounding == Rounding::kFloor) {
      m = mags[i] >> total;  // arithmetic shift: toward −∞
    } else {
      // |mag| < 2^24 and the divisor is a power of two: exact in double, one rounding.
      m = static_cast<int64_t>(std::nearbyint(std::ldexp(static_cast<double>(mags[i]), -total)));
    }
    m = std::clamp<int64_t>(m, -128, 127);
    out[1 + i] = static_cast<uint8_t>(static_cast<int8_t>(m));
  }
}

void DecodeBlock(const uint8_t* block, float* out) {
  const int e = block[0];
  for (int i = 0; i < kBfpGroup; ++i)
    out[i] = std::ldexp(static_cast<float>(static_cast<int8_t>(block[1 + i])), e - 133);
}

float QuantizeInBlock(float v, int block_exponent, Rounding rounding) {
  if (v == 0.0f) return 0.0f;
  const int e = BiasedExponent(v);
  if (block_exponent - e >= 32) return v < 0.0f ? -std::ldexp(1.0f, block_exponent - 133) : 0.0f;
  const double step = std::ldexp(1.0, block_exponent - 133);
  const double q = static_cast<double>(v) / step;
  double m = rounding == Rounding::kConvEven ? std::nearbyint(q) : std::floor(q);
  m = std::clamp(m, -128.0, 127.0);
  return static_cast<float>(m * step);
}

uint16_t F32ToBf16(float f, Rounding rounding) {
  if (rounding == Rounding::kConvEven) return f32_to_bf16(f);
  const uint32_t u = Bits(f);
  if (std::isnan(f)) return static_cast<uint16_t>((u >> 16) | 0x40u);
  // Truncation rounds toward zero; a negative value with dropped bits goes one ulp further
  // down (toward −∞). IRON's aie2p_math_emulation.py f32_to_bf16_floor states the same rule.
  const bool inexact = (u & 0xffffu) != 0, negative = (u >> 31) != 0;
  return static_cast<uint16_t>((u >> 16) + (inexact && negative ? 1u : 0u));
}

}  // namespace glance::kernels::npu
