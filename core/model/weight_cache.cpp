#include "core/model/weight_cache.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/model/safetensors.h"
#include "core/util/sha256.h"
#include "kernels/cpu/quant_formats.h"

namespace glance {
namespace fs = std::filesystem;
namespace {

constexpr char kMagic[8] = {'G', 'L', 'W', 'C', 'A', 'C', 'H', 'E'};
constexpr uint32_t kVersion = 3;  // bump when a weight layout in quant_formats.h changes (2: Q4 panels, 3: Q8 panels)
constexpr uint64_t kAlign = 64;

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
  return t == kernels::WeightType::Q8 ? nb * 4 : t == kernels::WeightType::Q4 ? nb * 2 : 0;
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
  Reader r{static_cast<const uint8_t*>(a), m->size};
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
    if (!r.ok || type > static_cast<uint8_t>(kernels::WeightType::Q4) || rows <= 0 || cols <= 0 ||
        rows > (int64_t{1} << 32) || cols > (int64_t{1} << 32))
      return;
    // Every format stores at least half a byte per element (Q4), so a matrix with more than
    // twice the file's bytes in elements cannot be in it; this also keeps the byte counts
    // below from overflowing (an 8-exabyte matrix must not wrap around to a 0-byte entry).
    uint64_t elements = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), &elements) ||
        elements / 2 > m->size)
      return;
    const auto t = static_cast<kernels::WeightType>(type);
    const uint64_t want = kernels::WeightBytes(t, rows, cols), want_s = ScaleBytes(t, rows, cols);
    if (want_s > want || sbytes != want_s || dbytes != want - want_s || doff > m->size || dbytes > m->size - doff ||
        soff > m->size || sbytes > m->size - soff || doff % kAlign || soff % kAlign)
      return;
    e.w.type = t;
    e.w.rows = rows;
    e.w.cols = cols;
    e.w.data = static_cast<const uint8_t*>(a) + doff;
    e.w.scales = sbytes ? static_cast<const uint8_t*>(a) + soff : nullptr;
    e.w.owner = m;
    entries.push_back(std::move(e));
  }
  if (!r.ok) return;
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
  std::error_code ec;
  fs::create_directories(fs::path(path_).parent_path(), ec);
  const std::string tmp = path_ + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return false;
    auto put = [&](const void* p, size_t n) { f.write(static_cast<const char*>(p), static_cast<std::streamsize>(n)); };
    auto pad_to = [&](uint64_t target) {
      static const char zeros[kAlign] = {};
      const uint64_t cur = static_cast<uint64_t>(f.tellp());
      if (target > cur) put(zeros, target - cur);
    };
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
    for (size_t i = 0; i < all.size(); ++i) {
      pad_to(doff[i]);
      put(all[i].w.data, dlen[i]);
      pad_to(soff[i]);
      if (slen[i]) put(all[i].w.scales, slen[i]);
    }
    pad_to(pos);
    f.flush();
    if (!f) {
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, path_, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return false;
  }
  added_.clear();
  return true;
}

}  // namespace glance
