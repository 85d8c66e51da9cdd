#pragma once
// Shared by the libFuzzer harnesses (one per reader of untrusted files; README "Fuzzing").
// A harness feeds the bytes to a reader and accepts exactly two outcomes: a result, or a
// glance::Error (the reader's one-line refusal). Anything else — another exception (bad_alloc,
// length_error, a json type_error), a signal, a sanitizer report, a timeout — is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace glance::fuzz {

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// A folder private to this process (readers that take paths get real files in it).
inline const std::filesystem::path& ScratchDir() {
  static const std::filesystem::path dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::filesystem::path d = std::filesystem::path(base && *base ? base : "/tmp") /
                              ("glance-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

// Writes `bytes` to <scratch>/<name> (replacing it) and returns the path.
inline std::string WriteScratch(const std::string& name, std::string_view bytes) {
  const std::string path = (ScratchDir() / name).string();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) std::abort();
  std::fclose(f);
  return path;
}

// Splits "a\0b\0c" into up to `n` parts (missing parts are empty): harnesses whose reader
// takes several files read them from one input this way.
inline std::vector<std::string_view> SplitNul(std::string_view s, size_t n) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < n) {
    const size_t z = s.find('\0');
    if (z == std::string_view::npos) break;
    parts.push_back(s.substr(0, z));
    s.remove_prefix(z + 1);
  }
  parts.push_back(s);
  parts.resize(n);
  return parts;
}

}  // namespace glance::fuzz
