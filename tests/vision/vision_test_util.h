#pragma once
// Shared helpers for the vision tests: golden tensors, files, error-message checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/model/safetensors.h"
#include "core/util/error.h"

namespace glance::vision::test {

inline std::string TinyDir() { return std::string(GLANCE_TEST_DATA) + "/tiny-a"; }
inline std::string TinyFile(const std::string& name) { return TinyDir() + "/" + name; }

inline const SafetensorsFile& Golden() {
  static const std::unique_ptr<SafetensorsFile> f = SafetensorsFile::Open(TinyFile("golden.safetensors"));
  return *f;
}

inline const TensorView& GoldenView(const std::string& name) {
  const auto& t = Golden().tensors();
  auto it = t.find(name);
  if (it == t.end()) throw Error("golden tensor " + name + " missing");
  return it->second;
}

inline std::vector<float> GoldenF32(const std::string& name) { return GoldenView(name).ToF32(); }

inline std::vector<int64_t> GoldenI64(const std::string& name) {
  const TensorView& v = GoldenView(name);
  EXPECT_EQ(v.dtype, DType::I64);
  std::vector<int64_t> out(static_cast<size_t>(v.numel()));
  std::memcpy(out.data(), v.data, out.size() * sizeof(int64_t));
  return out;
}

inline std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline std::string WriteTemp(const std::string& name, const std::vector<uint8_t>& bytes) {
  const auto dir = std::filesystem::temp_directory_path() / "glance_test_vision";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

inline double MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0.0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    m = std::max(m, std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  }
  return m;
}

inline double Cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    ab += double(a[i]) * double(b[i]);
    aa += double(a[i]) * double(a[i]);
    bb += double(b[i]) * double(b[i]);
  }
  return ab / std::sqrt(aa * bb);
}

// Runs fn, expects a glance::Error whose message contains every needle.
template <typename Fn>
void ExpectErrorContaining(Fn&& fn, std::initializer_list<const char*> needles) {
  try {
    fn();
    ADD_FAILURE() << "expected glance::Error";
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (const char* n : needles) EXPECT_NE(msg.find(n), std::string::npos) << "message: " << msg << "\nmissing: " << n;
  }
}

}  // namespace glance::vision::test
