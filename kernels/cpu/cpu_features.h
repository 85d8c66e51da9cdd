#pragma once
// Benchmarking as a lesser CPU: `glance-cli bench --cpu avx2` runs every kernel as it runs on
// an AVX2 + FMA machine without AVX-512 (the class of machine the CPU-speed targets are set
// for) on a development box that has more. Both dispatch mechanisms are limited: Highway's
// (hwy::DisableTargets) and the x86 GEMV kernels' (gemv_int8.h SelectInt8KernelIsa).
#include <string>

namespace glance::kernels {

// level: "native" (everything the CPU has) or "avx2". Call before any kernel runs (Highway
// caches its choice per function). Throws glance::Error (naming --cpu) on another level, or
// when the CPU lacks AVX2 + FMA for "avx2".
void LimitCpuFeatures(const std::string& level);

// What the kernels use now, e.g. "AVX3 / x86 GEMV avx512-vnni".
std::string CpuFeaturesInUse();

}  // namespace glance::kernels
