#pragma once
// On-disk cache of prepared (quantized) weights, so that the second start with the same
// checkpoint and precision maps the result instead of quantizing again (issue: CPU speed).
//   File: <dir>/<key>.bin, key = sha256 over every checkpoint file's (name, size, mtime), the
//   precision and this cache's format version — a changed checkpoint gets a new file.
//   Layout: "GLWCACHE" magic, u32 version, u32 count, the key (64 hex chars), then per entry
//   {u16 name length, name, u8 type, i64 rows, i64 cols, u64 data offset, u64 data bytes,
//   u64 scales offset, u64 scales bytes}; payloads 64-byte aligned; then an 88-byte footer:
//   "GLWCEND1", u64 file length, u64 length of the header and entry table, their sha256 (64
//   hex digits); little-endian.
// Written once, atomically, in pieces (AtomicFileWriter, core/util/atomic_write.h: temporary
// file, fsync, rename, fsync of the folder; issue 35), so a crash or power cut at any point
// leaves the earlier file or the new one, whole. A missing, truncated, grown, unfinished (no
// footer), corrupt or mismatched file is ignored (and rewritten); it never makes loading fail.
// The payload is not hashed (reading gigabytes at every start would undo the cache): damage
// to the weights' bytes themselves, on a disk that lies, is not detected.
//
// Thread contract: Find/Add from the loading thread only; returned refs keep the mapping alive.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/cpu/matmul.h"

namespace glance {

class TensorStore;

class WeightCache {
 public:
  // $XDG_CACHE_HOME/glance, else $HOME/.cache/glance; "" when neither is set.
  static std::string DefaultDir();
  // The cache files in `dir` made for the checkpoint in `model_dir`, one per precision that has
  // one ("bf16", "q8", "q4"), with their size (the model manager shows and deletes them). A folder
  // that is not a checkpoint, or has none: empty. Throws nothing.
  struct File {
    std::string precision;
    std::string path;
    uint64_t bytes = 0;
  };
  static std::vector<File> FilesFor(const std::string& model_dir, const std::string& dir = DefaultDir());
  static std::string Key(const TensorStore& store, const std::string& precision);

  // Maps <dir>/<key>.bin when it is valid for `key`; otherwise starts empty.
  WeightCache(const std::string& dir, const std::string& key);
  ~WeightCache();
  WeightCache(const WeightCache&) = delete;
  WeightCache& operator=(const WeightCache&) = delete;

  const std::string& path() const { return path_; }
  bool loaded() const { return !entries_.empty() && mapping_ != nullptr; }

  // The cached matrix `name` if present with this type and shape.
  std::optional<kernels::WeightRef> Find(const std::string& name, kernels::WeightType type,
                                         int64_t rows, int64_t cols) const;
  // Records a freshly prepared matrix for Save.
  void Add(const std::string& name, const kernels::WeightRef& w);
  // Writes the file when anything was added; returns false (and leaves no partial file, the
  // earlier file as it was) on any I/O failure, with error() saying why in one line naming the
  // file — a cache that cannot be written only costs time. Removes temporaries killed writers
  // left in the folder first.
  bool Save();
  const std::string& error() const { return error_; }

 private:
  struct Entry {
    std::string name;
    kernels::WeightRef w;
  };
  std::string path_, key_, error_;
  std::shared_ptr<const void> mapping_;
  std::vector<Entry> entries_;  // mapped from the file
  std::vector<Entry> added_;
};

}  // namespace glance
