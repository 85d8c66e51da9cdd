#pragma once
// safetensors writer: the inverse of safetensors.h, used by tests and `glance-cli make-model`.
// Layout follows the reference implementation (huggingface/safetensors `serialize`):
//   u64 LE header length N, N bytes of JSON padded with spaces to a multiple of 8, then the
//   tensors back to back, larger element sizes first and then by name, so every tensor starts
//   aligned to its element size (the data block starts 8-aligned).
// Data is streamed: the header is written first, then the caller appends each tensor's bytes
// in order() — a 4B checkpoint never has to be held in memory. Written through AtomicFileWriter
// (core/util/atomic_write.h, issue 35): a hidden temporary until Finish() fsyncs and renames it,
// so a kill, a full disk or an I/O error leaves the earlier file (or none), never a cut-off one.
//
// Thread contract: one writer per thread; not copyable.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/model/safetensors.h"

namespace glance {

class AtomicFileWriter;

struct TensorSpec {
  std::string name;
  DType dtype = DType::BF16;
  std::vector<int64_t> shape;

  int64_t numel() const;
  uint64_t nbytes() const;
};

class SafetensorsWriter {
 public:
  // Validates the specs (unique non-empty names, non-negative dims), lays them out and writes
  // the header. Throws glance::Error naming the path on I/O failure.
  SafetensorsWriter(const std::string& path, std::vector<TensorSpec> tensors,
                    const std::map<std::string, std::string>& metadata = {});
  // A writer destroyed before Finish() removes its temporary; `path` is as it was.
  ~SafetensorsWriter();
  SafetensorsWriter(const SafetensorsWriter&) = delete;
  SafetensorsWriter& operator=(const SafetensorsWriter&) = delete;

  // The data order: append the bytes of order()[0], then order()[1], ...
  const std::vector<TensorSpec>& order() const { return order_; }
  // Appends raw little-endian bytes; may span tensor boundaries. Throws if more bytes arrive
  // than the header announced.
  void Append(const void* data, size_t n);
  // Throws (naming the first incomplete tensor) unless every byte was appended; fsyncs and renames
  // the file into place.
  void Finish();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::unique_ptr<AtomicFileWriter> out_;
  std::vector<TensorSpec> order_;
  std::vector<uint64_t> ends_;  // [order_.size()] end offset of each tensor in the data block
  uint64_t total_ = 0;
  uint64_t written_ = 0;
  bool finished_ = false;
};

// A tensor with its bytes in memory (small files: tests, fixtures).
struct TensorBytes {
  TensorSpec spec;
  std::vector<uint8_t> bytes;  // [spec.nbytes()] little-endian
};

// Writes one file. Throws if a tensor's byte count does not match its shape and dtype.
void WriteSafetensorsFile(const std::string& path, const std::vector<TensorBytes>& tensors,
                          const std::map<std::string, std::string>& metadata = {});

// Writes `dir/model-0000i-of-0000n.safetensors` shards (each at most max_shard_bytes of data,
// but at least one tensor) plus `dir/model.safetensors.index.json` in HF's format
// ({"metadata": {"total_size": N}, "weight_map": {tensor: shard}}). Returns the shard paths.
std::vector<std::string> WriteShardedSafetensors(const std::string& dir, const std::vector<TensorBytes>& tensors,
                                                 uint64_t max_shard_bytes,
                                                 const std::map<std::string, std::string>& metadata = {});

}  // namespace glance
