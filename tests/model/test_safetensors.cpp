// safetensors reader + writer: round trips for every dtype, sharded folders, and every way a
// file can lie. Each bad input must be a glance::Error naming the file (and tensor).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>

#include "core/model/safetensors.h"
#include "core/model/safetensors_writer.h"
#include "core/util/error.h"
#include "kernels/cpu/numeric.h"
#include "tests/model/temp_dir.h"

using glance::DType;
using glance::Error;
using glance::SafetensorsFile;
using glance::TensorBytes;
using glance::TensorSpec;
using glance::TensorStore;
using glance::test::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

TensorBytes MakeTensor(const std::string& name, DType dtype, std::vector<int64_t> shape, uint32_t seed) {
  TensorBytes t{{name, dtype, std::move(shape)}, {}};
  t.bytes.resize(t.spec.nbytes());
  std::mt19937 rng(seed);
  for (auto& b : t.bytes) b = static_cast<uint8_t>(rng());
  return t;
}

// Writes u64 length + header text + `data_bytes` zero bytes, exactly as given (no padding).
void WriteRaw(const std::string& path, const std::string& header, size_t data_bytes, uint64_t claimed_len = 0) {
  std::ofstream out(path, std::ios::binary);
  const uint64_t len = claimed_len ? claimed_len : header.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>(len >> (8 * i)));
  out << header;
  out << std::string(data_bytes, '\0');
}

void ExpectError(const std::function<void()>& fn, std::initializer_list<std::string> parts) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one containing '" << *parts.begin() << "'";
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "message: " << msg << "\nmissing: " << p;
  }
}

void ExpectFileError(const std::string& path, std::initializer_list<std::string> parts) {
  SCOPED_TRACE(path);
  ExpectError([&] { SafetensorsFile::Open(path); }, parts);
  ExpectError([&] { TensorStore::OpenFiles({path}); }, parts);
}

long MaxRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

TEST(Safetensors, RoundTripEveryDType) {
  TempDir dir;
  const std::vector<TensorBytes> tensors = {
      MakeTensor("a.bf16", DType::BF16, {3, 5}, 1), MakeTensor("b.f16", DType::F16, {7}, 2),
      MakeTensor("c.f32", DType::F32, {2, 3, 1}, 3), MakeTensor("d.i8", DType::I8, {9}, 4),
      MakeTensor("e.u8", DType::U8, {1, 3}, 5),      MakeTensor("f.i32", DType::I32, {3}, 6),
      MakeTensor("g.i64", DType::I64, {2, 2}, 7),    MakeTensor("h.scalar", DType::F32, {}, 8),
      MakeTensor("i.empty", DType::BF16, {0, 4}, 9)};
  const std::string path = dir / "model.safetensors";
  glance::WriteSafetensorsFile(path, tensors, {{"format", "pt"}});

  // Header padded to 8 like the reference implementation.
  std::ifstream in(path, std::ios::binary);
  uint8_t len[8];
  in.read(reinterpret_cast<char*>(len), 8);
  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | len[i];
  EXPECT_EQ(header_len % 8, 0u);

  auto f = SafetensorsFile::Open(path);
  EXPECT_EQ(f->metadata().at("format"), "pt");
  ASSERT_EQ(f->tensors().size(), tensors.size());
  const uint8_t* data_block = nullptr;
  for (const auto& t : tensors) {
    SCOPED_TRACE(t.spec.name);
    const auto& v = f->tensors().at(t.spec.name);
    EXPECT_EQ(v.dtype, t.spec.dtype);
    EXPECT_EQ(v.shape, t.spec.shape);
    EXPECT_EQ(v.file, path);
    ASSERT_EQ(v.nbytes, t.bytes.size());
    if (!t.bytes.empty()) {
      EXPECT_EQ(std::memcmp(v.data, t.bytes.data(), v.nbytes), 0);
    }
    if (!data_block || v.data < data_block) data_block = v.data;
  }
  // Every tensor aligned to its element size relative to the (8-aligned) data block.
  for (const auto& [name, v] : f->tensors())
    EXPECT_EQ(static_cast<size_t>(v.data - data_block) % glance::DTypeSize(v.dtype), 0u) << name;

  // ToF32 decodes the float types and refuses the integer ones, naming the tensor.
  const auto& bf = f->tensors().at("a.bf16");
  const auto vals = bf.ToF32();
  for (size_t i = 0; i < vals.size(); ++i) {
    uint16_t h;
    std::memcpy(&h, tensors[0].bytes.data() + 2 * i, 2);
    const float want = glance::kernels::bf16_to_f32(h);
    if (!std::isnan(want)) {
      EXPECT_EQ(vals[i], want);
    }
  }
  EXPECT_EQ(f->tensors().at("h.scalar").numel(), 1);
  ExpectError([&] { f->tensors().at("d.i8").ToF32(); }, {"d.i8", path, "I8"});

  // Same content via the store.
  auto store = TensorStore::OpenFolder(dir.path());
  EXPECT_EQ(store.all().size(), tensors.size());
  EXPECT_EQ(store.Get("c.f32", {2, 3, 1}).nbytes, 24u);
  ExpectError([&] { store.Get("c.f32", {6}); }, {"c.f32", "[2, 3, 1]", "[6]"});
  ExpectError([&] { store.Get("nope"); }, {"nope", dir.path()});
  EXPECT_EQ(store.Find("nope"), nullptr);
}

TEST(Safetensors, ShardedFolderWithIndex) {
  TempDir dir;
  std::vector<TensorBytes> tensors;
  for (int i = 0; i < 10; ++i) {
    std::string name = "t";  // (not "t" + to_string: GCC 12 -Wrestrict false positive)
    name += std::to_string(i);
    tensors.push_back(MakeTensor(name, DType::BF16, {16, 8}, static_cast<uint32_t>(100 + i)));
  }
  const auto shards = glance::WriteShardedSafetensors(dir.path(), tensors, 3 * 256);
  ASSERT_EQ(shards.size(), 4u);  // 3+3+3+1 tensors of 256 bytes
  EXPECT_EQ(fs::path(shards[0]).filename(), "model-00001-of-00004.safetensors");
  const json index = json::parse(std::ifstream(dir / "model.safetensors.index.json"));
  EXPECT_EQ(index["metadata"]["total_size"], 10 * 256);
  auto store = TensorStore::OpenFolder(dir.path());
  EXPECT_EQ(store.files().size(), 4u);
  for (const auto& t : tensors) {
    const auto& v = store.Get(t.spec.name);
    EXPECT_EQ(std::memcmp(v.data, t.bytes.data(), t.bytes.size()), 0) << t.spec.name;
    EXPECT_EQ(fs::path(v.file).filename().string(), index["weight_map"][t.spec.name].get<std::string>());
  }
}

TEST(Safetensors, RejectsBrokenFiles) {
  TempDir dir;
  auto p = [&](const std::string& n) { return dir / n; };

  { std::ofstream(p("empty.safetensors")); }
  ExpectFileError(p("empty.safetensors"), {"empty.safetensors", "0 bytes"});
  { std::ofstream(p("short.safetensors")) << "abcde"; }
  ExpectFileError(p("short.safetensors"), {"short.safetensors", "5 bytes"});
  WriteRaw(p("huge_len.safetensors"), "{}", 0, uint64_t{1} << 62);
  ExpectFileError(p("huge_len.safetensors"), {"huge_len.safetensors", "header length", "not plausible"});
  WriteRaw(p("past_eof.safetensors"), "{}", 0, 4096);
  ExpectFileError(p("past_eof.safetensors"), {"past_eof.safetensors", "past the end"});
  WriteRaw(p("not_json.safetensors"), "{\"a\": [1, 2", 0);
  ExpectFileError(p("not_json.safetensors"), {"not_json.safetensors", "not valid JSON"});
  WriteRaw(p("array.safetensors"), "[1, 2, 3]", 0);
  ExpectFileError(p("array.safetensors"), {"array.safetensors", "not a JSON object"});

  auto one = [](const std::string& dtype, const std::string& shape, const std::string& offsets) {
    return "{\"w\": {\"dtype\": \"" + dtype + "\", \"shape\": " + shape + ", \"data_offsets\": " + offsets + "}}";
  };
  WriteRaw(p("dtype.safetensors"), one("F8_E4M3", "[2]", "[0, 2]"), 2);
  ExpectFileError(p("dtype.safetensors"), {"dtype.safetensors", "'w'", "unsupported dtype", "F8_E4M3"});
  WriteRaw(p("size.safetensors"), one("BF16", "[2, 3]", "[0, 10]"), 10);
  ExpectFileError(p("size.safetensors"), {"size.safetensors", "'w'", "10 bytes", "[2, 3]", "12"});
  WriteRaw(p("negdim.safetensors"), one("BF16", "[-2]", "[0, 4]"), 4);
  ExpectFileError(p("negdim.safetensors"), {"negdim.safetensors", "'w'", "bad dimension"});
  WriteRaw(p("floatdim.safetensors"), one("BF16", "[2.5]", "[0, 4]"), 4);
  ExpectFileError(p("floatdim.safetensors"), {"floatdim.safetensors", "'w'", "bad dimension"});
  WriteRaw(p("overflow.safetensors"), one("F32", "[4294967296, 4294967296, 4294967296]", "[0, 4]"), 4);
  ExpectFileError(p("overflow.safetensors"), {"overflow.safetensors", "'w'", "overflows"});
  WriteRaw(p("backwards.safetensors"), one("U8", "[2]", "[4, 2]"), 4);
  ExpectFileError(p("backwards.safetensors"), {"backwards.safetensors", "'w'", "end before"});
  WriteRaw(p("negoff.safetensors"), one("U8", "[2]", "[-2, 0]"), 4);
  ExpectFileError(p("negoff.safetensors"), {"negoff.safetensors", "'w'", "data_offsets"});
  WriteRaw(p("fields.safetensors"), "{\"w\": {\"dtype\": \"U8\", \"shape\": [1]}}", 1);
  ExpectFileError(p("fields.safetensors"), {"fields.safetensors", "'w'", "data_offsets"});
  WriteRaw(p("meta.safetensors"), "{\"__metadata__\": [1]}", 0);
  ExpectFileError(p("meta.safetensors"), {"meta.safetensors", "__metadata__"});
  std::string rank = "[";
  for (int i = 0; i < 40; ++i) rank += i ? ",1" : "1";
  WriteRaw(p("rank.safetensors"), one("U8", rank + "]", "[0, 1]"), 1);
  ExpectFileError(p("rank.safetensors"), {"rank.safetensors", "'w'", "40 dimensions"});

  // Truncated: a valid file cut short.
  glance::WriteSafetensorsFile(p("trunc.safetensors"), {MakeTensor("big", DType::F32, {64, 64}, 1)});
  fs::resize_file(p("trunc.safetensors"), fs::file_size(p("trunc.safetensors")) - 100);
  ExpectFileError(p("trunc.safetensors"), {"trunc.safetensors", "'big'", "past the end", "truncated"});

  WriteRaw(p("overlap.safetensors"),
           "{\"a\": {\"dtype\": \"F32\", \"shape\": [4], \"data_offsets\": [0, 16]},"
           " \"b\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [8, 16]}}",
           16);
  ExpectFileError(p("overlap.safetensors"), {"overlap.safetensors", "'a'", "'b'", "overlap"});
  WriteRaw(p("dup.safetensors"),
           "{\"a\": {\"dtype\": \"U8\", \"shape\": [1], \"data_offsets\": [0, 1]},"
           " \"a\": {\"dtype\": \"U8\", \"shape\": [1], \"data_offsets\": [1, 2]}}",
           2);
  ExpectFileError(p("dup.safetensors"), {"dup.safetensors", "'a'", "twice"});

  ExpectFileError(p("missing.safetensors"), {"missing.safetensors", "cannot open"});
  ExpectFileError(dir.path(), {dir.path(), "not a regular file"});
}

TEST(Safetensors, RejectsBrokenFolders) {
  {  // The same tensor in two shards.
    TempDir dir;
    glance::WriteSafetensorsFile(dir / "a.safetensors", {MakeTensor("x", DType::U8, {4}, 1)});
    glance::WriteSafetensorsFile(dir / "b.safetensors", {MakeTensor("x", DType::U8, {4}, 2)});
    ExpectError([&] { TensorStore::OpenFolder(dir.path()); }, {"'x'", "twice", "a.safetensors", "b.safetensors"});
  }
  {  // Index names a shard that is not there.
    TempDir dir;
    const auto shards = glance::WriteShardedSafetensors(
        dir.path(), {MakeTensor("x", DType::U8, {4}, 1), MakeTensor("y", DType::U8, {4}, 2)}, 4);
    fs::remove(shards[1]);
    ExpectError([&] { TensorStore::OpenFolder(dir.path()); },
                {"model.safetensors.index.json", "model-00002-of-00002.safetensors", "missing"});
  }
  {  // Index names a tensor its shard does not hold.
    TempDir dir;
    glance::WriteShardedSafetensors(dir.path(), {MakeTensor("x", DType::U8, {4}, 1)}, 100);
    json index = json::parse(std::ifstream(dir / "model.safetensors.index.json"));
    index["weight_map"]["ghost"] = "model-00001-of-00001.safetensors";
    std::ofstream(dir / "model.safetensors.index.json") << index.dump();
    ExpectError([&] { TensorStore::OpenFolder(dir.path()); },
                {"model.safetensors.index.json", "'ghost'", "model-00001-of-00001.safetensors"});
  }
  {  // Broken index files.
    TempDir dir;
    std::ofstream(dir / "model.safetensors.index.json") << "{nope";
    ExpectError([&] { TensorStore::OpenFolder(dir.path()); }, {"model.safetensors.index.json", "not valid JSON"});
    std::ofstream(dir / "model.safetensors.index.json") << "{\"metadata\": {}}";
    ExpectError([&] { TensorStore::OpenFolder(dir.path()); }, {"model.safetensors.index.json", "weight_map"});
    std::ofstream(dir / "model.safetensors.index.json") << "{\"weight_map\": {}}";
    ExpectError([&] { TensorStore::OpenFolder(dir.path()); }, {"model.safetensors.index.json", "no tensors"});
    std::ofstream(dir / "model.safetensors.index.json") << "{\"weight_map\": {\"x\": \"../etc/passwd\"}}";
    ExpectError([&] { TensorStore::OpenFolder(dir.path()); }, {"model.safetensors.index.json", "plain file name"});
  }
  {  // No weights at all.
    TempDir dir;
    std::ofstream(dir / "config.json") << "{}";
    ExpectError([&] { TensorStore::OpenFolder(dir.path()); }, {dir.path(), "no weights", "model.safetensors"});
  }
  ExpectError([] { TensorStore::OpenFolder("/nonexistent/model"); }, {"/nonexistent/model", "not a folder"});
}

// Lying headers must be refused from the header alone: no allocation proportional to the
// claimed sizes (ASan-friendly: nothing here asks for more than a few MB even when it fails).
TEST(Safetensors, LyingHeadersDoNotAllocate) {
  TempDir dir;
  const long before = MaxRssKb();
  const std::vector<std::pair<std::string, std::string>> lies = {
      {"claims 2^62 elements", "{\"w\": {\"dtype\": \"F32\", \"shape\": [4611686018427387904], \"data_offsets\": [0, 16]}}"},
      {"claims 2^63 offsets", "{\"w\": {\"dtype\": \"U8\", \"shape\": [1], \"data_offsets\": [0, 9223372036854775807]}}"},
      {"huge square", "{\"w\": {\"dtype\": \"BF16\", \"shape\": [1000000000, 1000000000], \"data_offsets\": [0, 2]}}"},
  };
  for (const auto& [what, header] : lies) {
    SCOPED_TRACE(what);
    WriteRaw(dir / "lie.safetensors", header, 16);
    ExpectFileError(dir / "lie.safetensors", {"lie.safetensors", "'w'"});
  }
  // A header length near the limit on a tiny file, and a deeply nested header (no recursion blow-up).
  WriteRaw(dir / "len.safetensors", "{}", 0, 99ull << 20);
  ExpectFileError(dir / "len.safetensors", {"len.safetensors", "past the end"});
  WriteRaw(dir / "deep.safetensors", std::string(200000, '[') + std::string(200000, ']'), 0);
  ExpectFileError(dir / "deep.safetensors", {"deep.safetensors"});
  const long grown_mb = (MaxRssKb() - before) / 1024;
  EXPECT_LT(grown_mb, 64) << "peak RSS grew by " << grown_mb << " MB on lying headers";
}

TEST(SafetensorsWriter, StreamingChecksByteCounts) {
  TempDir dir;
  const std::string path = dir / "s.safetensors";
  {
    glance::SafetensorsWriter w(path, {{"b", DType::BF16, {3}}, {"a", DType::F32, {2}}});
    // Reference order: larger element size first.
    ASSERT_EQ(w.order()[0].name, "a");
    const float a[2] = {1.0f, 2.0f};
    w.Append(a, sizeof a);
    ExpectError([&] { w.Finish(); }, {path, "'b'", "incomplete"});
    const uint16_t b[4] = {};
    ExpectError([&] { w.Append(b, sizeof b); }, {path, "more than"});
  }
  EXPECT_FALSE(fs::exists(path)) << "an unfinished writer must remove its partial file";
  ExpectError([&] { glance::SafetensorsWriter w(path, {{"x", DType::U8, {1}}, {"x", DType::U8, {1}}}); },
              {"'x'", "twice"});
  ExpectError([&] { glance::WriteSafetensorsFile(path, {{{"x", DType::F32, {2}}, {1, 2, 3}}}); },
              {"'x'", "3 bytes", "8"});
}

// Issue 12 item 2: a weights file truncated or overwritten in place while loaded must be noticed
// (reading a vanished page of the mapping would raise SIGBUS); one replaced by rename is fine.
TEST(Safetensors, NoticesFilesChangedInPlaceAfterLoading) {
  TempDir dir;
  const std::string path = dir / "model.safetensors";
  auto write = [&](uint32_t seed) {
    glance::WriteSafetensorsFile(path, {MakeTensor("w", DType::F32, {256, 256}, seed)});
  };
  auto change_of = [](const TensorStore& s) -> std::string {
    try {
      s.CheckUnchanged();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  write(1);
  {
    // Truncated in place (to a few sizes, including 0): refused, naming the file.
    for (const off_t size : {off_t{0}, off_t{100}, off_t{200000}}) {
      write(1);
      const TensorStore s = TensorStore::OpenFolder(dir.path());
      EXPECT_EQ(change_of(s), "");
      ASSERT_EQ(::truncate(path.c_str(), size), 0);
      const std::string err = change_of(s);
      EXPECT_NE(err.find(path), std::string::npos) << err;
      EXPECT_NE(err.find("truncated"), std::string::npos) << err;
      EXPECT_NE(err.find("Load the model again"), std::string::npos) << err;
    }
  }
  {
    // Overwritten in place with the same size (other values): the modification time tells.
    write(1);
    const TensorStore s = TensorStore::OpenFolder(dir.path());
    struct timespec later[2] = {{0, UTIME_OMIT}, {0, 0}};
    ::clock_gettime(CLOCK_REALTIME, &later[1]);
    later[1].tv_sec += 5;
    {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(-16, std::ios::end);
      f.write("0123456789abcdef", 16);
    }
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), later, 0), 0);
    EXPECT_EQ(fs::file_size(path), s.files()[0]->file_size());
    EXPECT_NE(change_of(s).find("overwritten in place"), std::string::npos) << change_of(s);
  }
  {
    // Replaced by rename (how downloads and installers do it): the loaded mapping keeps the old
    // file, which is unchanged, so nothing is reported and the old weights still read.
    write(1);
    const TensorStore s = TensorStore::OpenFolder(dir.path());
    const glance::TensorView& w = s.Get("w");
    const std::vector<uint8_t> before(w.data, w.data + w.nbytes);
    glance::WriteSafetensorsFile(dir / "new.safetensors", {MakeTensor("w", DType::F32, {8, 8}, 2)});
    fs::rename(dir / "new.safetensors", path);
    EXPECT_EQ(change_of(s), "");
    EXPECT_EQ(std::vector<uint8_t>(w.data, w.data + w.nbytes), before);
  }
}

// Issue 12 item 9: a 0-element tensor widens to an empty vector (no memcpy from a null pointer).
TEST(Safetensors, EmptyTensorWidensToNothing) {
  TempDir dir;
  glance::WriteSafetensorsFile(dir / "e.safetensors", {MakeTensor("e", DType::F32, {0, 4}, 1),
                                                       MakeTensor("b", DType::BF16, {0}, 1)});
  const auto f = SafetensorsFile::Open(dir / "e.safetensors");
  EXPECT_TRUE(f->tensors().at("e").ToF32().empty());
  EXPECT_TRUE(f->tensors().at("b").ToF32().empty());
}
