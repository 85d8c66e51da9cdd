#pragma once
// Shared helpers for the text tests: golden-file paths and JSON loading.
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace glance::test {

inline std::string TinyA(const std::string& file) { return std::string(GLANCE_TEST_DATA) + "/tiny-a/" + file; }

inline std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline nlohmann::json ReadJson(const std::string& path) { return nlohmann::json::parse(ReadFile(path)); }

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

}  // namespace glance::test
