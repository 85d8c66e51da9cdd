// Seeded normal-distributed test vectors, shared by the kernel tests of one binary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace glance::kernels::testing {

inline std::vector<float> RandomNormal(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

}  // namespace glance::kernels::testing
