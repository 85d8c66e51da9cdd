#include "core/model/safetensors_writer.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "core/util/atomic_write.h"
#include "core/util/error.h"

namespace glance {

namespace fs = std::filesystem;
using nlohmann::json;

int64_t TensorSpec::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

uint64_t TensorSpec::nbytes() const { return static_cast<uint64_t>(numel()) * DTypeSize(dtype); }

SafetensorsWriter::SafetensorsWriter(const std::string& path, std::vector<TensorSpec> tensors,
                                     const std::map<std::string, std::string>& metadata)
    : path_(path), order_(std::move(tensors)) {
  std::set<std::string> names;
  for (const auto& t : order_) {
    if (t.name.empty() || t.name == "__metadata__")
      throw Error(path + ": cannot write a tensor named '" + t.name + "'");
    if (!names.insert(t.name).second) throw Error(path + ": tensor '" + t.name + "' is listed twice");
    for (int64_t d : t.shape)
      if (d < 0) throw Error(path + ": tensor '" + t.name + "' has a negative dimension");
  }
  // Reference order: larger alignment first, then by name; keeps every tensor aligned.
  std::stable_sort(order_.begin(), order_.end(), [](const TensorSpec& a, const TensorSpec& b) {
    const size_t sa = DTypeSize(a.dtype), sb = DTypeSize(b.dtype);
    return sa != sb ? sa > sb : a.name < b.name;
  });

  json header = json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  for (const auto& t : order_) {
    const uint64_t begin = total_;
    total_ += t.nbytes();
    ends_.push_back(total_);
    header[t.name] = {{"dtype", DTypeName(t.dtype)}, {"shape", t.shape}, {"data_offsets", {begin, total_}}};
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');

  // Temporaries a killed writer left in this folder (hidden, .NAME.glance-tmp-XXXXXX).
  RemoveAtomicWriteLeftovers(fs::path(path).parent_path().empty() ? std::string(".")
                                                                     : fs::path(path).parent_path().string());
  out_ = std::make_unique<AtomicFileWriter>(path);
  uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(static_cast<uint64_t>(text.size()) >> (8 * i));
  out_->Write(len, 8);
  out_->Write(text);
}

SafetensorsWriter::~SafetensorsWriter() = default;  // AtomicFileWriter: temporary removed unless committed

void SafetensorsWriter::Append(const void* data, size_t n) {
  if (written_ + n > total_)
    throw Error(path_ + ": " + std::to_string(written_ + n) + " data bytes appended, more than the " +
                std::to_string(total_) + " the header announced");
  out_->Write(data, n);
  written_ += n;
}

void SafetensorsWriter::Finish() {
  if (written_ != total_) {
    const auto it = std::upper_bound(ends_.begin(), ends_.end(), written_);
    const std::string name = it == ends_.end() ? std::string("?") : order_[static_cast<size_t>(it - ends_.begin())].name;
    throw Error(path_ + ": data for tensor '" + name + "' is incomplete (" + std::to_string(written_) + " of " +
                std::to_string(total_) + " bytes written)");
  }
  out_->Commit();
  finished_ = true;
}

static void CheckBytes(const std::string& path, const TensorBytes& t) {
  if (t.bytes.size() != t.spec.nbytes())
    throw Error(path + ": tensor '" + t.spec.name + "' has " + std::to_string(t.bytes.size()) +
                " bytes, its shape and dtype need " + std::to_string(t.spec.nbytes()));
}

void WriteSafetensorsFile(const std::string& path, const std::vector<TensorBytes>& tensors,
                          const std::map<std::string, std::string>& metadata) {
  std::vector<TensorSpec> specs;
  std::map<std::string, const TensorBytes*> by_name;
  for (const auto& t : tensors) {
    CheckBytes(path, t);
    specs.push_back(t.spec);
    by_name[t.spec.name] = &t;
  }
  SafetensorsWriter w(path, std::move(specs), metadata);
  for (const auto& s : w.order()) {
    const auto& b = by_name.at(s.name)->bytes;
    w.Append(b.data(), b.size());
  }
  w.Finish();
}

std::vector<std::string> WriteShardedSafetensors(const std::string& dir, const std::vector<TensorBytes>& tensors,
                                                 uint64_t max_shard_bytes,
                                                 const std::map<std::string, std::string>& metadata) {
  // Greedy split in the given order: a shard closes when the next tensor would overflow it.
  std::vector<std::vector<TensorBytes>> shards(1);
  uint64_t in_shard = 0, total = 0;
  for (const auto& t : tensors) {
    CheckBytes(dir, t);
    if (!shards.back().empty() && in_shard + t.bytes.size() > max_shard_bytes) {
      shards.emplace_back();
      in_shard = 0;
    }
    shards.back().push_back(t);
    in_shard += t.bytes.size();
    total += t.bytes.size();
  }
  const size_t n = shards.size();
  std::vector<std::string> paths;
  json weight_map = json::object();
  for (size_t i = 0; i < n; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", i + 1, n);
    const std::string path = (fs::path(dir) / name).string();
    WriteSafetensorsFile(path, shards[i], metadata);
    for (const auto& t : shards[i]) weight_map[t.spec.name] = name;
    paths.push_back(path);
  }
  const json index = {{"metadata", {{"total_size", total}}}, {"weight_map", weight_map}};
  const std::string index_path = (fs::path(dir) / "model.safetensors.index.json").string();
  WriteFileAtomically(index_path, index.dump(2) + "\n");
  return paths;
}

}  // namespace glance
