#pragma once
// Access to the tiny-a golden data (tests/data/tiny-a, see its README.md) for the LM tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/safetensors.h"

namespace glance::lm::testing {

inline std::string TinyDir() { return std::string(GLANCE_TEST_DATA) + "/tiny-a"; }

// Tensor `name` of `store`, stored as I64.
inline std::vector<int64_t> ReadI64(const TensorStore& store, const std::string& name) {
  const TensorView& t = store.Get(name);
  EXPECT_EQ(t.dtype, DType::I64) << name;
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  std::memcpy(v.data(), t.data, v.size() * sizeof(int64_t));
  return v;
}

struct Golden {
  TensorStore store = TensorStore::OpenFiles({TinyDir() + "/golden.safetensors"});

  std::vector<float> F32(const std::string& name) const { return store.Get(name).ToF32(); }
  std::vector<int64_t> I64(const std::string& name) const { return ReadI64(store, name); }
  std::vector<int64_t> Shape(const std::string& name) const { return store.Get(name).shape; }
};

inline const Golden& GetGolden() {
  static const Golden g;
  return g;
}

inline ModelConfig TinyConfig() { return ModelConfig::FromFile(TinyDir() + "/config.json"); }

// max |a - b| over n values.
inline float MaxAbsDiff(const float* a, const float* b, size_t n) {
  float m = 0.0f;
  for (size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}
inline float MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  return MaxAbsDiff(a.data(), b.data(), std::min(a.size(), b.size()));
}

// torch.argmax: first maximal index.
inline int64_t Argmax(const float* x, int64_t n) {
  return static_cast<int64_t>(std::max_element(x, x + n) - x);
}

}  // namespace glance::lm::testing
