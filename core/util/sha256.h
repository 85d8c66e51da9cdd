#pragma once
// SHA-256 (FIPS 180-4), for identifying images and checkpoints in saved conversations.
#include <cstddef>
#include <cstdint>
#include <string>

namespace glance {

class Sha256 {
 public:
  Sha256();
  void Update(const void* data, size_t n);
  std::string HexDigest();  // finishes the hash; call once

 private:
  void Block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

std::string Sha256Hex(const void* data, size_t n);
// Hashes a regular file in chunks; throws glance::Error when it cannot be read or is not a
// regular file (a FIFO or device is refused at once, never waited on).
std::string Sha256File(const std::string& path);

}  // namespace glance
