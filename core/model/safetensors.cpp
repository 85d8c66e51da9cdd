#include "core/model/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/util/error.h"
#include "core/util/json_field.h"
#include "kernels/cpu/numeric.h"

namespace glance {

namespace fs = std::filesystem;
using nlohmann::json;

// Headers of real checkpoints are well under 10 MB; anything larger is corrupt, and
// refusing it keeps a lying length from turning into a huge allocation.
constexpr uint64_t kMaxHeaderBytes = 100ull << 20;
// Real tensors have rank <= 5 (the Conv3d patch embedding); a long shape list is corruption.
constexpr size_t kMaxRank = 16;

size_t DTypeSize(DType t) {
  switch (t) {
    case DType::BF16: case DType::F16: return 2;
    case DType::F32: case DType::I32: return 4;
    case DType::I8: case DType::U8: return 1;
    case DType::I64: return 8;
  }
  return 0;
}

const char* DTypeName(DType t) {
  switch (t) {
    case DType::BF16: return "BF16";
    case DType::F16: return "F16";
    case DType::F32: return "F32";
    case DType::I8: return "I8";
    case DType::U8: return "U8";
    case DType::I32: return "I32";
    case DType::I64: return "I64";
  }
  return "?";
}

static bool ParseDType(const std::string& s, DType* out) {
  static const std::pair<const char*, DType> kNames[] = {
      {"BF16", DType::BF16}, {"F16", DType::F16}, {"F32", DType::F32}, {"I8", DType::I8},
      {"U8", DType::U8},     {"I32", DType::I32}, {"I64", DType::I64}};
  for (const auto& [name, t] : kNames) {
    if (s == name) {
      *out = t;
      return true;
    }
  }
  return false;
}

int64_t TensorView::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string TensorView::ShapeString() const {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << ']';
  return os.str();
}

std::vector<float> TensorView::ToF32() const {
  const size_t n = static_cast<size_t>(numel());
  std::vector<float> out(n);
  const bool is_float = dtype == DType::F32 || dtype == DType::BF16 || dtype == DType::F16;
  if (n == 0 && is_float) return out;  // out.data() may be null: no memcpy from or to it
  switch (dtype) {
    case DType::F32:
      std::memcpy(out.data(), data, n * 4);
      break;
    case DType::BF16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t v;
        std::memcpy(&v, data + 2 * i, 2);
        out[i] = kernels::bf16_to_f32(v);
      }
      break;
    case DType::F16:
      for (size_t i = 0; i < n; ++i) {
        uint16_t v;
        std::memcpy(&v, data + 2 * i, 2);
        out[i] = kernels::f16_to_f32(v);
      }
      break;
    default:
      throw Error("tensor '" + name + "' in " + file + " has dtype " + DTypeName(dtype) +
                  ", expected a floating-point type (BF16, F16 or F32)");
  }
  return out;
}

// Read-only private mapping of a whole file.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    // O_NONBLOCK: a FIFO by this name would otherwise block the open until a writer came (the
    // fstat below then refuses it); for a regular file the flag changes nothing.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) throw Error("cannot open " + path + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd_);
      throw Error(path + " is not a regular file");
    }
    size_ = static_cast<size_t>(st.st_size);
    opened_ = st;
    if (size_ > 0) {
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
      if (p == MAP_FAILED) {
        ::close(fd_);
        throw Error("cannot map " + path + ": " + std::strerror(errno));
      }
      data_ = static_cast<const uint8_t*>(p);
    }
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
    if (fd_ >= 0) ::close(fd_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

  // Empty when the file behind the mapping still has the size and modification time it had
  // when it was mapped; else what changed. Replacing the file by rename leaves this open inode
  // alone (the mapping keeps the old one), so only an in-place truncation or overwrite shows.
  std::string Change() const {
    struct stat now {};
    if (::fstat(fd_, &now) != 0) return std::string("cannot be checked: ") + std::strerror(errno);
    if (now.st_size != opened_.st_size)
      return "was truncated or rewritten in place (" + std::to_string(opened_.st_size) + " bytes when loaded, " +
             std::to_string(now.st_size) + " now)";
    if (now.st_mtim.tv_sec != opened_.st_mtim.tv_sec || now.st_mtim.tv_nsec != opened_.st_mtim.tv_nsec)
      return "was overwritten in place (its modification time changed)";
    return {};
  }

 private:
  struct stat opened_ {};
  int fd_ = -1;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

SafetensorsFile::~SafetensorsFile() = default;
size_t SafetensorsFile::file_size() const { return map_ ? map_->size() : 0; }

void SafetensorsFile::CheckUnchanged() const {
  const std::string change = map_->Change();
  if (!change.empty())
    throw Error(path_ + " " + change + " since the model was loaded; its weights can no longer be read safely. "
                "Load the model again (replace model files by moving a new file into place, not by writing over them)");
}

std::unique_ptr<SafetensorsFile> SafetensorsFile::Open(const std::string& path) {
  std::unique_ptr<SafetensorsFile> f(new SafetensorsFile());
  f->path_ = path;
  f->map_ = std::make_unique<MappedFile>(path);
  const uint8_t* base = f->map_->data();
  const size_t size = f->map_->size();
  auto fail = [&](const std::string& what) -> Error {
    return Error(path + ": not a valid safetensors file: " + what);
  };
  if (size < 8) throw fail("file is " + std::to_string(size) + " bytes, shorter than the 8-byte header length");
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | base[i];
  if (header_len < 2 || header_len > kMaxHeaderBytes)
    throw fail("header length " + std::to_string(header_len) + " is not plausible");
  if (header_len > size - 8)
    throw fail("header length " + std::to_string(header_len) + " runs past the end of the file (" +
               std::to_string(size) + " bytes; truncated?)");
  // nlohmann keeps the last of two equal keys silently; a file naming a tensor twice is
  // corrupt (two data ranges for one name), so catch duplicates while parsing.
  std::set<std::string> seen_keys;
  std::string duplicate;
  const json::parser_callback_t on_event = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth == 1 && event == json::parse_event_t::key && duplicate.empty()) {
      const std::string key = parsed.get<std::string>();
      if (!seen_keys.insert(key).second) duplicate = key;
    }
    return true;
  };
  json header;
  try {
    header = json::parse(base + 8, base + 8 + header_len, on_event);
  } catch (const json::exception& e) {
    throw fail(std::string("header is not valid JSON (") + e.what() + ")");
  }
  if (!duplicate.empty()) throw fail("tensor '" + duplicate + "' is listed twice in the header");
  if (!header.is_object()) throw fail("header is not a JSON object");
  const uint8_t* data_block = base + 8 + header_len;
  const uint64_t data_size = size - 8 - header_len;

  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    if (name == "__metadata__") {
      if (!it->is_object()) throw fail("__metadata__ is not a JSON object");
      for (auto m = it->begin(); m != it->end(); ++m)
          if (m->is_string()) f->metadata_[m.key()] = m->get<std::string>();
      continue;
    }
    auto bad = [&](const std::string& what) { return fail("tensor '" + name + "': " + what); };
    const json& e = *it;
    if (!e.is_object() || !e.contains("dtype") || !e.contains("shape") ||
        !e.contains("data_offsets"))
      throw bad("entry needs dtype, shape and data_offsets");
    TensorView v;
    v.name = name;
    v.file = path;
    if (!e["dtype"].is_string() || !ParseDType(e["dtype"].get<std::string>(), &v.dtype))
      throw bad("unsupported dtype " + e["dtype"].dump());
    if (!e["shape"].is_array()) throw bad("shape is not an array");
    if (e["shape"].size() > kMaxRank)
      throw bad("shape has " + std::to_string(e["shape"].size()) + " dimensions (at most " +
                std::to_string(kMaxRank) + " are plausible)");
    uint64_t numel = 1;
    for (const json& d : e["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) throw bad("shape has a bad dimension " + d.dump());
      const uint64_t dim = d.get<uint64_t>();
      if (dim != 0 && numel > std::numeric_limits<uint64_t>::max() / 16 / dim)
        throw bad("shape overflows");
      numel *= dim;
      v.shape.push_back(static_cast<int64_t>(dim));
    }
    const json& off = e["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() ||
        !off[1].is_number_unsigned())
      throw bad("data_offsets must be two non-negative integers");
    const uint64_t b = off[0].get<uint64_t>(), en = off[1].get<uint64_t>();
    if (b > en) throw bad("data_offsets end before they begin");
    if (en > data_size)
      throw bad("data [" + std::to_string(b) + ", " + std::to_string(en) +
                ") runs past the end of the data (" + std::to_string(data_size) + " bytes; truncated?)");
    const uint64_t want = numel * DTypeSize(v.dtype);
    if (en - b != want)
      throw bad("holds " + std::to_string(en - b) + " bytes but shape " + v.ShapeString() + " of " +
                DTypeName(v.dtype) + " needs " + std::to_string(want));
    v.data = data_block + b;
    v.nbytes = static_cast<size_t>(want);
    if (want > 0) ranges.emplace_back(b, en);
    f->tensors_.emplace(name, std::move(v));
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second) {
      std::string a, c;
      for (const auto& [n, t] : f->tensors_) {
        const uint64_t tb = static_cast<uint64_t>(t.data - data_block);
        if (tb == ranges[i - 1].first) a = n;
        if (tb == ranges[i].first) c = n;
      }
      throw fail("tensors '" + a + "' and '" + c + "' overlap");
    }
  return f;
}

TensorStore TensorStore::OpenFiles(const std::vector<std::string>& paths) {
  TensorStore s;
  s.origin_ = paths.empty() ? std::string() : fs::path(paths[0]).parent_path().string();
  for (const auto& p : paths) {
    s.files_.push_back(SafetensorsFile::Open(p));
    for (const auto& [name, view] : s.files_.back()->tensors()) {
      auto [it, inserted] = s.index_.emplace(name, &view);
      if (!inserted)
        throw Error("tensor '" + name + "' appears twice: in " + it->second->file + " and " + p);
    }
  }
  return s;
}

TensorStore TensorStore::OpenFolder(const std::string& dir) {
  const fs::path d(dir);
  if (!fs::is_directory(d)) throw Error(dir + " is not a folder");
  const fs::path index = d / "model.safetensors.index.json";
  std::vector<std::string> paths;
  if (fs::exists(index)) {
    const json j = ReadJsonFile(index.string(), "cannot open " + index.string());
    if (!j.contains("weight_map") || !j["weight_map"].is_object())
      throw Error(index.string() + " has no weight_map object");
    std::set<std::string> shards;
    for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
      if (!it->is_string()) throw Error(index.string() + ": weight_map entry '" + it.key() + "' is not a file name");
      const std::string shard = it->get<std::string>();
      if (shard.find('/') != std::string::npos || shard.find("..") != std::string::npos)
        throw Error(index.string() + ": shard name '" + shard + "' must be a plain file name");
      shards.insert(shard);
    }
    if (shards.empty()) throw Error(index.string() + " lists no tensors (its weight_map is empty)");
    for (const auto& sh : shards) {
      if (!fs::exists(d / sh))
        throw Error(index.string() + " lists shard " + sh + ", which is missing from " + dir);
      paths.push_back((d / sh).string());
    }
    TensorStore s = OpenFiles(paths);
    for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
      const TensorView* v = s.Find(it.key());
      if (!v) throw Error(index.string() + " lists tensor '" + it.key() + "' but " + it->get<std::string>() + " does not hold it");
    }
    s.origin_ = dir;
    return s;
  }
  if (fs::exists(d / "model.safetensors")) {
    paths.push_back((d / "model.safetensors").string());
  } else {
    for (const auto& e : fs::directory_iterator(d))
      if (e.is_regular_file() && e.path().extension() == ".safetensors") paths.push_back(e.path().string());
    std::sort(paths.begin(), paths.end());
  }
  if (paths.empty())
    throw Error(dir + " holds no weights: expected model.safetensors or model.safetensors.index.json");
  TensorStore s = OpenFiles(paths);
  s.origin_ = dir;
  return s;
}

void TensorStore::CheckUnchanged() const {
  for (const auto& f : files_) f->CheckUnchanged();
}

const TensorView* TensorStore::Find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : it->second;
}

const TensorView& TensorStore::Get(const std::string& name) const {
  const TensorView* v = Find(name);
  if (!v) throw Error("the model in " + origin_ + " is missing tensor '" + name + "'");
  return *v;
}

const TensorView& TensorStore::Get(const std::string& name, const std::vector<int64_t>& shape) const {
  const TensorView& v = Get(name);
  if (v.shape != shape) {
    TensorView want;
    want.shape = shape;
    throw Error("tensor '" + name + "' in " + v.file + " has shape " + v.ShapeString() +
                ", expected " + want.ShapeString() + " from config.json");
  }
  return v;
}

}  // namespace glance
