#pragma once
// f32 dot product, SIMD with Highway runtime dispatch; DotF32Reference is the scalar oracle.
#include <cstdint>

namespace glance::kernels {

float DotF32(const float* a, const float* b, int64_t n);
float DotF32Reference(const float* a, const float* b, int64_t n);

}  // namespace glance::kernels
