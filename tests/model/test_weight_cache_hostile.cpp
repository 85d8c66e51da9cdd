// A weight-cache file that lies about a matrix's size (issue 12 item 9): byte counts computed
// from rows x cols must not wrap around, so an entry claiming an exabyte-sized matrix held in 0
// bytes is not accepted; the cache is then ignored (and rebuilt), never trusted.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/model/weight_cache.h"
#include "core/util/sha256.h"
#include "kernels/cpu/matmul.h"
#include "tests/model/temp_dir.h"

namespace glance {
namespace {

// One-entry cache file in the format weight_cache.cpp reads: magic, version 4, count, key, then
// per entry name, type, rows, cols, data offset/bytes, scale offset/bytes; data after, 64-aligned;
// the footer ("GLWCEND1", file length, table length, the table's sha256) last.
void WriteCache(const std::string& path, const std::string& key, kernels::WeightType type, int64_t rows,
                int64_t cols, uint64_t dbytes, uint64_t sbytes) {
  std::string out("GLWCACHE", 8);
  auto put = [&](const auto& v) { out.append(reinterpret_cast<const char*>(&v), sizeof(v)); };
  put(uint32_t{4});  // version (weight_cache.cpp kVersion)
  put(uint32_t{1});  // count
  out += key;
  const std::string name = "m.weight";
  put(static_cast<uint16_t>(name.size()));
  out += name;
  put(static_cast<uint8_t>(type));
  put(rows);
  put(cols);
  const uint64_t data_at = 512;
  put(data_at);
  put(dbytes);
  put(data_at);
  put(sbytes);
  const uint64_t table = out.size();
  Sha256 h;
  h.Update(out.data(), table);
  out.resize(data_at + 64, '\0');
  out += "GLWCEND1";
  put(uint64_t{out.size() + 8 + 8 + 64});
  put(table);
  out += h.HexDigest();
  std::ofstream(path, std::ios::binary).write(out.data(), static_cast<std::streamsize>(out.size()));
}

TEST(WeightCacheHostile, WrappedByteCountsAreNotTrusted) {
  test::TempDir dir;
  const std::string key = "k";
  using kernels::WeightType;
  // Control: an honest small entry loads.
  WriteCache(dir / "k.bin", key, WeightType::F32, 4, 4, 64, 0);
  EXPECT_TRUE(WeightCache(dir.path(), key).loaded());
  // rows x cols x element size = 2^64 (or a multiple) wraps to 0 bytes.
  struct Case {
    WeightType type;
    int64_t rows, cols;
  };
  const Case cases[] = {{WeightType::F32, int64_t{1} << 32, int64_t{1} << 32},
                        {WeightType::BF16, int64_t{1} << 32, int64_t{1} << 31},
                        {WeightType::F16, int64_t{1} << 31, int64_t{1} << 32},
                        {WeightType::F32, int64_t{1} << 31, int64_t{1} << 31}};
  for (const Case& c : cases) {
    WriteCache(dir / "k.bin", key, c.type, c.rows, c.cols, 0, 0);
    EXPECT_FALSE(WeightCache(dir.path(), key).loaded()) << c.rows << " x " << c.cols;
  }
  // An entry larger than the file, without any wrap, is refused as well.
  WriteCache(dir / "k.bin", key, WeightType::F32, 1024, 1024, uint64_t{4} << 20, 0);
  EXPECT_FALSE(WeightCache(dir.path(), key).loaded());
}

// A FIFO (or a device) where the cache file should be: no entry, at once (opening a FIFO for
// reading used to wait for a writer forever, so loading the model hung).
TEST(WeightCacheHostile, AFifoInPlaceOfTheFileIsNoEntryNotAHang) {
  test::TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "k.bin").c_str(), 0600), 0);  // (the path is a std::string)
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(WeightCache(dir.path(), "k").loaded());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  std::filesystem::remove(dir / "k.bin");
  std::filesystem::create_symlink("/dev/zero", dir / "k.bin");
  EXPECT_FALSE(WeightCache(dir.path(), "k").loaded());
  std::filesystem::remove(dir / "k.bin");
  WriteCache(dir / "k.bin", "k", kernels::WeightType::F32, 4, 4, 64, 0);  // control
  EXPECT_TRUE(WeightCache(dir.path(), "k").loaded());
}

}  // namespace
}  // namespace glance
