#pragma once
// safetensors reader: memory-maps each file, validates the header, and hands out views.
// Format: u64 little-endian header length N, then N bytes of JSON
//   {"name": {"dtype": "BF16", "shape": [..], "data_offsets": [begin, end]}, "__metadata__": {...}}
// then the data block; offsets are relative to the data block.
//
// Validation (every failure is a glance::Error naming the file and, where there is one, the
// tensor): header length sane and inside the file; JSON well-formed; known dtype; shape
// non-negative with no overflow; end - begin == numel * dtype size; offsets inside the data
// block; no two tensors overlap; names unique (across shards too).
//
// Thread contract: immutable after open; views stay valid while the reader lives.
//
// Changes on disk: the weights stay memory-mapped (no copy, so loading is fast and the pages
// are shared with the page cache). A file replaced by rename is harmless (the mapping keeps the
// old inode), but one truncated in place would make the next read of a vanished page raise
// SIGBUS, and one overwritten in place would silently change the weights. CheckUnchanged()
// compares the open file's size and modification time with those at load (one fstat per file)
// and throws a glance::Error naming the file; the engine calls it before each forward pass.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace glance {

enum class DType : uint8_t { BF16, F16, F32, I8, U8, I32, I64 };

size_t DTypeSize(DType t);
const char* DTypeName(DType t);  // "BF16", ...

struct TensorView {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  const uint8_t* data = nullptr;  // points into the mapping
  size_t nbytes = 0;
  std::string file;  // the file it lives in, for messages

  int64_t numel() const;
  std::string ShapeString() const;  // "[64, 32]"
  // Widens to f32 (BF16/F16/F32 only; other dtypes throw).
  std::vector<float> ToF32() const;
};

class MappedFile;

// One .safetensors file.
class SafetensorsFile {
 public:
  static std::unique_ptr<SafetensorsFile> Open(const std::string& path);
  ~SafetensorsFile();

  const std::string& path() const { return path_; }
  const std::map<std::string, TensorView>& tensors() const { return tensors_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  size_t file_size() const;
  // Throws glance::Error naming the file when it was truncated or overwritten since Open.
  void CheckUnchanged() const;

 private:
  SafetensorsFile() = default;
  std::string path_;
  std::unique_ptr<MappedFile> map_;
  std::map<std::string, TensorView> tensors_;
  std::map<std::string, std::string> metadata_;
};

// All the weights of a model folder: a single `model.safetensors`, any one `*.safetensors`,
// or the shards listed by `model.safetensors.index.json`.
class TensorStore {
 public:
  static TensorStore OpenFolder(const std::string& dir);
  static TensorStore OpenFiles(const std::vector<std::string>& paths);

  // nullptr when absent.
  const TensorView* Find(const std::string& name) const;
  // Throws glance::Error naming the tensor (and the folder) when absent.
  const TensorView& Get(const std::string& name) const;
  // Throws when absent or when the shape differs, naming both shapes.
  const TensorView& Get(const std::string& name, const std::vector<int64_t>& shape) const;

  const std::map<std::string, const TensorView*>& all() const { return index_; }
  const std::vector<std::unique_ptr<SafetensorsFile>>& files() const { return files_; }
  const std::string& origin() const { return origin_; }
  // SafetensorsFile::CheckUnchanged for every file.
  void CheckUnchanged() const;

 private:
  std::string origin_;
  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, const TensorView*> index_;
};

}  // namespace glance
