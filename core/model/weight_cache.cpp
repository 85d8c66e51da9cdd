#include "core/model/weight_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/model/safetensors.h"
#include "core/util/atomic_write.h"
#include "core/util/error.h"
#include "core/util/sha256.h"
#include "kernels/cpu/quant_formats.h"

namespace glance {
namespace fs = std::filesystem;
namespace {

constexpr char kMagic[8] = {'G', 'L', 'W', 'C', 'A', 'C', 'H', 'E'};
// Bump when a weight layout in quant_formats.h or this file's layout changes (2: Q4 panels,
// 3: Q8 panels, 4: the footer).
constexpr uint32_t kVersion = 4;
constexpr uint64_t kAlign = 64;
constexpr char kFooterMagic[8] = {'G', 'L', 'W', 'C', 'E', 'N', 'D', '1'};
constexpr size_t kFooterBytes = 8 + 8 + 8 + 64;

// The last kFooterBytes of a cache file: "GLWCEND1", the whole file's length (u64), the length
// of the header and entry table (u64), their sha256 (64 hex digits). Written after every
// payload byte.
std::string Footer(const void* head, uint64_t head_bytes, uint64_t file_bytes) {
  std::string f(kFooterMagic, 8);
  f.append(reinterpret_cast<const char*>(&file_bytes), 8);
  f.append(reinterpret_cast<const char*>(&head_bytes), 8);
  Sha256 h;
  h.Update(head, head_bytes);
  f += h.HexDigest();
  return f;
}

// Temporaries a killed writer left in the cache folder: this version's (atomic_write.h) and the
// "<key>.bin.tmp<pid>" files earlier versions wrote, when that process is gone. They are as
// large as the weights.
void RemoveCacheLeftovers(const std::string& dir) {
  RemoveAtomicWriteLeftovers(dir);
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const size_t mark = name.find(".bin.tmp");
    if (mark != 64 || name.size() == mark + 8 || name.find_first_not_of("0123456789", mark + 8) != std::string::npos)
      continue;
    std::error_code pid_ec;
    if (fs::exists(fs::path("/proc") / name.substr(mark + 8), pid_ec) || pid_ec) continue;
    std::error_code rm_ec;
    fs::remove(it->path(), rm_ec);
  }
}

struct Mapping {
  void* addr = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (addr) munmap(addr, size);
  }
};

// Bounds-checked little reader over the mapped bytes.
struct Reader {
  const uint8_t* p;
  size_t size, pos = 0;
  bool ok = true;
  template <class T>
  T Get() {
    T v{};
    if (pos + sizeof(T) > size) {
      ok = false;
      return v;
    }
    std::memcpy(&v, p + pos, sizeof(T));
    pos += sizeof(T);
    return v;
  }
  std::string Str(size_t n) {
    if (pos + n > size) {
      ok = false;
      return {};
    }
    std::string s(reinterpret_cast<const char*>(p + pos), n);
    pos += n;
    return s;
  }
};

uint64_t ScaleBytes(kernels::WeightType t, int64_t rows, int64_t cols) {
  const uint64_t nb = static_cast<uint64_t>(kernels::QuantBlocks(cols)) * static_cast<uint64_t>(rows);
  if (t == kernels::WeightType::Q8) return nb * 4;
  return t == kernels::WeightType::Q4 || t == kernels::WeightType::Q6 ? nb * 2 : 0;
}

}  // namespace

std::string WeightCache::DefaultDir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return (fs::path(x) / "glance").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / ".cache" / "glance").string();
  return "";
}

std::string WeightCache::Key(const TensorStore& store, const std::string& precision) {
  Sha256 h;
  const std::string head = "glance-weight-cache v" + std::to_string(kVersion) + " " + precision;
  h.Update(head.data(), head.size());
  for (const auto& f : store.files()) {
    std::error_code ec;
    const fs::path p = fs::absolute(f->path(), ec);
    const auto mtime = fs::last_write_time(f->path(), ec).time_since_epoch().count();
    const std::string id = p.string() + "|" + std::to_string(f->file_size()) + "|" + std::to_string(mtime);
    h.Update(id.data(), id.size());
  }
  return h.HexDigest();
}

std::vector<WeightCache::File> WeightCache::FilesFor(const std::string& model_dir, const std::string& dir) {
  std::vector<File> found;
  if (dir.empty()) return found;
  try {
    const TensorStore store = TensorStore::OpenFolder(model_dir);
    for (const char* precision : {"bf16", "q8", "q4"}) {  // the precisions that are cached (not f32)
      const fs::path path = fs::path(dir) / (Key(store, precision) + ".bin");
      std::error_code ec;
      const uintmax_t bytes = fs::file_size(path, ec);
      if (!ec && fs::is_regular_file(path, ec)) found.push_back({precision, path.string(), bytes});
    }
  } catch (const std::exception&) {  // not a checkpoint: no cache of it
  }
  return found;
}

WeightCache::WeightCache(const std::string& dir, const std::string& key) : key_(key) {
  if (dir.empty()) return;
  path_ = (fs::path(dir) / (key + ".bin")).string();
  // O_NONBLOCK: opening a FIFO put in its place would otherwise wait for a writer forever;
  // anything but a regular file is treated as no entry (and re-prepared over).
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 16) {
    ::close(fd);
    return;
  }
  auto m = std::make_shared<Mapping>();
  m->size = static_cast<size_t>(st.st_size);
  void* a = ::mmap(nullptr, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (a == MAP_FAILED) return;
  m->addr = a;
  // The footer is written last, after every payload byte: without it (a write that never
  // finished, a file cut short or grown) the file is not read at all.
  if (m->size < kFooterBytes + 16) return;
  const size_t body = m->size - kFooterBytes;
  const char* footer = static_cast<const char*>(a) + body;
  uint64_t head_bytes = 0;
  std::memcpy(&head_bytes, footer + 16, 8);
  if (head_bytes > body || std::memcmp(footer, Footer(a, head_bytes, m->size).data(), kFooterBytes) != 0) return;
  Reader r{static_cast<const uint8_t*>(a), static_cast<size_t>(head_bytes)};
  if (r.Str(8) != std::string(kMagic, 8) || r.Get<uint32_t>() != kVersion) return;
  const uint32_t count = r.Get<uint32_t>();
  if (r.Str(key.size()) != key || !r.ok) return;
  std::vector<Entry> entries;
  for (uint32_t i = 0; i < count && r.ok; ++i) {
    const uint16_t len = r.Get<uint16_t>();
    Entry e;
    e.name = r.Str(len);
    const uint8_t type = r.Get<uint8_t>();
    const int64_t rows = r.Get<int64_t>(), cols = r.Get<int64_t>();
    const uint64_t doff = r.Get<uint64_t>(), dbytes = r.Get<uint64_t>();
    const uint64_t soff = r.Get<uint64_t>(), sbytes = r.Get<uint64_t>();
    if (!r.ok || type > static_cast<uint8_t>(kernels::WeightType::Q6) || rows <= 0 || cols <= 0 ||
        rows > (int64_t{1} << 32) || cols > (int64_t{1} << 32))
      return;
    // Every format stores at least half a byte per element (Q4), so a matrix with more than
    // twice the file's bytes in elements cannot be in it; this also keeps the byte counts
    // below from overflowing (an 8-exabyte matrix must not wrap around to a 0-byte entry).
    uint64_t elements = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), &elements) ||
        elements / 2 > body)
      return;
    const auto t = static_cast<kernels::WeightType>(type);
    const uint64_t want = kernels::WeightBytes(t, rows, cols), want_s = ScaleBytes(t, rows, cols);
    if (want_s > want || sbytes != want_s || dbytes != want - want_s || doff > body || dbytes > body - doff ||
        soff > body || sbytes > body - soff || doff % kAlign || soff % kAlign)
      return;
    e.w.type = t;
    e.w.rows = rows;
    e.w.cols = cols;
    e.w.data = static_cast<const uint8_t*>(a) + doff;
    e.w.scales = sbytes ? static_cast<const uint8_t*>(a) + soff : nullptr;
    e.w.owner = m;
    entries.push_back(std::move(e));
  }
  if (!r.ok || r.pos != head_bytes) return;
  entries_ = std::move(entries);
  mapping_ = m;
}

WeightCache::~WeightCache() = default;

std::optional<kernels::WeightRef> WeightCache::Find(const std::string& name, kernels::WeightType type,
                                                    int64_t rows, int64_t cols) const {
  for (const Entry& e : entries_)
    if (e.name == name && e.w.type == type && e.w.rows == rows && e.w.cols == cols) return e.w;
  return std::nullopt;
}

void WeightCache::Add(const std::string& name, const kernels::WeightRef& w) {
  added_.push_back({name, w});
}

bool WeightCache::Save() {
  if (added_.empty() || path_.empty()) return true;
  error_.clear();
  // Everything (cached entries still valid plus new ones) goes into one fresh file.
  std::vector<Entry> all = entries_;
  for (const Entry& e : added_) all.push_back(e);
  uint64_t header = 8 + 4 + 4 + key_.size();
  for (const Entry& e : all) header += 2 + e.name.size() + 1 + 8 * 6;
  auto align = [](uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; };
  std::vector<uint64_t> doff(all.size()), soff(all.size()), dlen(all.size()), slen(all.size());
  uint64_t pos = align(header);
  for (size_t i = 0; i < all.size(); ++i) {
    const auto& w = all[i].w;
    slen[i] = ScaleBytes(w.type, w.rows, w.cols);
    dlen[i] = kernels::WeightBytes(w.type, w.rows, w.cols) - slen[i];
    doff[i] = pos;
    pos = align(pos + dlen[i]);
    soff[i] = pos;
    pos = align(pos + slen[i]);
  }
  std::string head;
  head.reserve(header);
  auto put = [&](const void* p, size_t n) { head.append(static_cast<const char*>(p), n); };
  put(kMagic, 8);
  const uint32_t count = static_cast<uint32_t>(all.size());
  put(&kVersion, 4);
  put(&count, 4);
  put(key_.data(), key_.size());
  for (size_t i = 0; i < all.size(); ++i) {
    const Entry& e = all[i];
    const uint16_t len = static_cast<uint16_t>(e.name.size());
    const uint8_t type = static_cast<uint8_t>(e.w.type);
    put(&len, 2);
    put(e.name.data(), len);
    put(&type, 1);
    put(&e.w.rows, 8);
    put(&e.w.cols, 8);
    put(&doff[i], 8);
    put(&dlen[i], 8);
    put(&soff[i], 8);
    put(&slen[i], 8);
  }
  const std::string footer = Footer(head.data(), head.size(), pos + kFooterBytes);
  std::error_code ec;
  fs::create_directories(fs::path(path_).parent_path(), ec);
  RemoveCacheLeftovers(fs::path(path_).parent_path().string());
  try {
    // Temporary file, fsync, rename, fsync of the folder (atomic_write.h), in pieces: the file
    // is as large as the prepared weights and is never held in memory twice.
    AtomicFileWriter f(path_);
    f.Write(head);
    for (size_t i = 0; i < all.size(); ++i) {
      f.PadTo(doff[i]);
      f.Write(all[i].w.data, dlen[i]);
      f.PadTo(soff[i]);
      if (slen[i]) f.Write(all[i].w.scales, slen[i]);
    }
    f.PadTo(pos);
    f.Write(footer);
    f.Commit();
  } catch (const Error& e) {
    error_ = std::string("weight cache: ") + e.what() + "; the weights will be prepared again next time";
    return false;
  }
  added_.clear();
  return true;
}

}  // namespace glance
