#pragma once
// Shared test inputs for tests/npu: reproducible normal-distributed vectors.
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace glance::kernels::npu::test_data {

inline std::vector<float> RandomNormal(size_t n, uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace glance::kernels::npu::test_data
