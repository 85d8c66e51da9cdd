#pragma once
// Reading a reference folder (tests/data/tiny-a format): golden.safetensors tensors as f32 or
// int64 vectors, and golden.json. Shared by the reference check and the tests.
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/model/safetensors.h"

namespace glance {

class ReferenceData {
 public:
  // Throws glance::Error naming the missing file.
  explicit ReferenceData(const std::string& dir);

  const std::string& dir() const { return dir_; }
  const nlohmann::json& meta() const { return meta_; }  // golden.json
  bool Has(const std::string& name) const { return store_.Find(name) != nullptr; }
  const TensorView& View(const std::string& name) const { return store_.Get(name); }
  std::vector<float> F32(const std::string& name) const;
  std::vector<int64_t> I64(const std::string& name) const;

 private:
  std::string dir_;
  nlohmann::json meta_;
  TensorStore store_;
};

// Figures used by the gates.
double MaxAbsDiff(const float* a, const float* b, size_t n);
double Cosine(const float* a, const float* b, size_t n);

}  // namespace glance
