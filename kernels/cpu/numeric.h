#pragma once
// Scalar number formats shared by every kernel: bf16 and f16 <-> f32, and round-to-nearest-even.
#include <cmath>
#include <cstdint>
#include <cstring>

namespace glance::kernels {

inline float bf16_to_f32(uint16_t v) {
  uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Round-to-nearest-even, NaN kept quiet (what torch's .to(bfloat16) does).
inline uint16_t f32_to_bf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

inline float round_bf16(float f) { return bf16_to_f32(f32_to_bf16(f)); }

// IEEE half -> float (exact), subnormals included.
inline float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while ((mant & 0x400u) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ffu;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// float -> IEEE half, round to nearest even (as F16C's vcvtps2ph and torch's .to(float16)),
// subnormals included, NaN kept quiet. Finite values beyond the half range saturate to ±65504
// instead of becoming ±inf (a cache row with an inf would turn attention into NaN).
inline uint16_t f32_to_f16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);  // NaN
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7bffu);  // rounds to >= 65520
  if (ax < 0x38800000u) {  // below 2^-14: a half subnormal, a multiple of 2^-24
    float a;
    std::memcpy(&a, &ax, sizeof a);
    // a · 2^24 is exact in float; nearbyint rounds it to an integer, nearest even (the
    // default rounding mode). 1024 (2^-14 itself) is the smallest normal's bits, as it should be.
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(a * 16777216.0f)));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits, ties to even.
  return static_cast<uint16_t>(sign | ((ax - 0x38000000u + 0xfffu + ((ax >> 13) & 1u)) >> 13));
}

}  // namespace glance::kernels
