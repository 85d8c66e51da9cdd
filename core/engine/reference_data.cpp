#include "core/engine/reference_data.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/util/error.h"

namespace glance {

namespace fs = std::filesystem;

ReferenceData::ReferenceData(const std::string& dir) : dir_(dir) {
  const fs::path d(dir);
  for (const char* f : {"golden.json", "golden.safetensors"})
    if (!fs::exists(d / f))
      throw Error(dir + " is not a reference folder: " + f + " is missing (see tests/data/tiny-a/README.md)");
  try {
    std::ifstream in(d / "golden.json");
    meta_ = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error((d / "golden.json").string() + " is not valid JSON: " + e.what());
  }
  store_ = TensorStore::OpenFiles({(d / "golden.safetensors").string()});
}

std::vector<float> ReferenceData::F32(const std::string& name) const { return View(name).ToF32(); }

std::vector<int64_t> ReferenceData::I64(const std::string& name) const {
  const TensorView& v = View(name);
  if (v.dtype != DType::I64) throw Error("reference tensor '" + name + "' is not int64");
  std::vector<int64_t> out(static_cast<size_t>(v.numel()));
  std::memcpy(out.data(), v.data, out.size() * sizeof(int64_t));
  return out;
}

double MaxAbsDiff(const float* a, const float* b, size_t n) {
  double m = 0.0;
  for (size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  return m;
}

double Cosine(const float* a, const float* b, size_t n) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < n; ++i) {
    ab += static_cast<double>(a[i]) * static_cast<double>(b[i]);
    aa += static_cast<double>(a[i]) * static_cast<double>(a[i]);
    bb += static_cast<double>(b[i]) * static_cast<double>(b[i]);
  }
  return aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : (aa == bb ? 1.0 : 0.0);
}

}  // namespace glance
