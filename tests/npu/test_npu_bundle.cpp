// Bundles in IRON's format: export from the golden checkpoint and read back onto the engine's
// weights exactly, the committed fixture, IRON/taconite kernel records, and malformed files
// (issue 12 item 7: wrapped and negative offsets, sizes beyond the file) as one-line errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/model/safetensors.h"
#include "core/npu/bundle_export.h"
#include "core/npu/npu_bundle.h"
#include "core/util/error.h"
#include "kernels/npu/packed_weight.h"

namespace glance::npu {
namespace {

namespace fs = std::filesystem;
using kernels::npu::PackedLayout;
const std::string kTiny = std::string(GLANCE_TEST_DATA) + "/tiny-a";
const std::string kFixture = std::string(GLANCE_TEST_DATA) + "/npu-bundle-tiny-a";
const std::string kLayer0 = "model.language_model.layers.0.";

fs::path TempDir(const std::string& tag) {
  const fs::path p = fs::temp_directory_path() / ("glance_npu_bundle_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

// Every checkpoint projection the bundle holds must be exactly the checkpoint tensor packed
// directly (same values after unpacking; the blocks are copied, never re-encoded).
void ExpectEveryProjectionExact(const std::string& bundle_dir) {
  const TensorStore store = TensorStore::OpenFolder(kTiny);
  auto bundle = std::make_shared<const NpuBundle>(NpuBundle::Open(bundle_dir));
  const BundleWeightSource source(bundle, store);
  std::set<std::string> names;
  for (const auto& t : PlanBundle(store).tensors)
    for (const auto& p : t.pieces) names.insert(p.checkpoint);
  ASSERT_GT(names.size(), 40u);
  for (const std::string& name : names) {
    const auto got = source.FindByName(name);
    ASSERT_TRUE(got) << name;
    const TensorView& v = store.Get(name);
    const std::vector<float> w = v.ToF32();
    const auto direct = kernels::npu::PackWeight(w.data(), v.shape[0], v.numel() / v.shape[0], got->layout,
                                                 bundle->rounding());
    EXPECT_EQ(kernels::npu::UnpackWeight(*got), kernels::npu::UnpackWeight(direct)) << name;
    if (got->layout == direct.layout) {
      EXPECT_EQ(got->bytes, direct.bytes) << name;
    }
  }
  // IRON's runtime computes in_proj_b / in_proj_a on the host: not in the bundle.
  EXPECT_FALSE(source.FindByName(kLayer0 + "linear_attn.in_proj_b.weight"));
}

std::vector<uint8_t> BlockOf(const std::vector<uint8_t>& bytes, int64_t offset) {
  return {bytes.begin() + offset, bytes.begin() + offset + 9};
}

TEST(NpuBundle, ExportWritesIronNamesAndFusions) {
  const fs::path dir = TempDir("export");
  const ExportSummary s = ExportNpuBundle(kTiny, dir.string());
  const NpuBundle b = NpuBundle::Open(dir.string());
  EXPECT_EQ(b.param("D"), "64");
  EXPECT_EQ(b.param("I"), "128");
  EXPECT_EQ(b.param("n_down"), "2");  // ⌈128 / 64⌉
  EXPECT_EQ(b.param("layer_types"), "lin,lin,lin,att,lin,lin,lin,att");
  EXPECT_EQ(b.param("head_rows"), "4096");
  EXPECT_EQ(b.param("n_head"), "1");
  EXPECT_EQ(b.param("gemv_format"), "bfp16");
  // Placeholder kernels for the stand-in (bundle_kernels.h), marked as such; --weights-only none.
  EXPECT_FALSE(b.kernels().empty());
  EXPECT_EQ(b.param("kernels"), "placeholder");
  EXPECT_TRUE(b.MissingKernelFiles().empty());
  {
    const fs::path bare = TempDir("export-weights-only");
    ExportNpuBundle(kTiny, bare.string(), kernels::npu::Rounding::kConvEven, {}, /*placeholder_kernels=*/false);
    const NpuBundle w = NpuBundle::Open(bare.string());
    EXPECT_TRUE(w.kernels().empty());  // the real kernels come from IRON
    EXPECT_EQ(w.param("kernels"), "");
    fs::remove_all(bare);
  }
  for (const char* t : {"l0.g.in", "l0.g.o", "l0.g.gu", "l0.g.down0", "l0.g.down1", "l3.g.in", "head0"})
    EXPECT_TRUE(b.tensors().count(t)) << t;
  EXPECT_EQ(static_cast<size_t>(s.tensors), b.tensors().size());

  // Hand-placed blocks, from the layout rules (not from the reader):
  const TensorStore store = TensorStore::OpenFolder(kTiny);
  auto packed = [&](const std::string& name, PackedLayout layout) {
    const TensorView& v = store.Get(name);
    const std::vector<float> w = v.ToF32();
    return kernels::npu::PackWeight(w.data(), v.shape[0], v.numel() / v.shape[0], layout);
  };
  // l0.g.gu (N 256, K 64 → K_pad 512, tile_n 128): gate row 33 is fused row 64·1 + 1 = 65,
  // up row 33 is 64·1 + 32 + 1 = 97 (32 | 32 per 64).
  const auto gate = packed(kLayer0 + "mlp.gate_proj.weight", PackedLayout::kGemmTiles);
  const auto up = packed(kLayer0 + "mlp.up_proj.weight", PackedLayout::kGemmTiles);
  const auto gu_geom = kernels::npu::PackedShape(256, 64, PackedLayout::kGemmTiles);
  const auto gu = b.ReadBytes("l0.g.gu", static_cast<uint64_t>(kernels::npu::PackedBytes(gu_geom)));
  EXPECT_EQ(BlockOf(gu, kernels::npu::BlockOffset(65, 8, gu_geom)), BlockOf(gate.bytes, kernels::npu::BlockOffset(33, 8, gate)));
  EXPECT_EQ(BlockOf(gu, kernels::npu::BlockOffset(97, 8, gu_geom)), BlockOf(up.bytes, kernels::npu::BlockOffset(33, 8, up)));
  EXPECT_NE(BlockOf(gu, kernels::npu::BlockOffset(65, 8, gu_geom)), BlockOf(gu, kernels::npu::BlockOffset(33, 8, gu_geom)));
  // l0.g.down1 = down_proj[:, 64:128]: down row 5, k 64..71 is down1's row 5, k 0..7.
  const auto down = packed(kLayer0 + "mlp.down_proj.weight", PackedLayout::kGemmTiles);
  const auto d1_geom = kernels::npu::PackedShape(64, 64, PackedLayout::kGemmTiles);
  const auto d1 = b.ReadBytes("l0.g.down1", static_cast<uint64_t>(kernels::npu::PackedBytes(d1_geom)));
  EXPECT_EQ(BlockOf(d1, kernels::npu::BlockOffset(5, 0, d1_geom)), BlockOf(down.bytes, kernels::npu::BlockOffset(5, 64, down)));
  // head0, GEMV rows: lm_head row 9, k 0..7 at (9/8)·(64/8·72) + 0 + (9%8)·9 = 585.
  const auto head = packed("lm_head.weight", PackedLayout::kGemvRows);
  const auto h0 = b.ReadBytes("head0", 4096u * 64 / 8 * 9);
  EXPECT_EQ(BlockOf(h0, 585), BlockOf(head.bytes, kernels::npu::BlockOffset(9, 0, head)));
  EXPECT_EQ(h0[585], head.bytes[585]);
  ExpectEveryProjectionExact(dir.string());
  fs::remove_all(dir);
}

TEST(NpuBundle, TheCommittedFixtureLoadsAndHoldsTheCheckpointExactly) {
  const NpuBundle b = NpuBundle::Open(kFixture);
  EXPECT_FALSE(b.kernels().empty());  // IRON-style kernel records (files not shipped)
  EXPECT_FALSE(b.MissingKernelFiles().empty());
  ExpectEveryProjectionExact(kFixture);
}

void WriteBundle(const fs::path& dir, const std::string& manifest, const std::string& tensors, size_t bin_bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / "manifest.txt") << manifest;
  std::ofstream(dir / "tensors.txt") << tensors;
  std::ofstream(dir / "tensors.bin") << std::string(bin_bytes, '\0');
}

TEST(NpuBundle, ReadsIronAndTaconiteKernelRecordsAsWritten) {
  const fs::path dir = TempDir("iron");
  WriteBundle(dir,
              "version 1\n"
              "param D 64\n"
              "xclbin gemm kernels/gemm.xclbin MLIR_AIE\n"
              "xclbin gemv kernels/gemv.xclbin MLIR_AIE\n"
              "gemm lin M=256 K=512 N=256 lda=512 c_stride=256 b_bytes=147456 a_elems=131072 c_elems=65536 insts=kernels/lin.bin\n"
              "gemm_chunks lin 2 a_elems=262144 c_elems=131072 insts=kernels/lin_x2.bin\n"
              "gemm gu M=256 K=512 N=256 lda=512 c_stride=160 b_bytes=147456 a_elems=131072 c_elems=40960 ctx=gemm rounding=floor insts=kernels/gu.bin\n"
              "gemv head M=4096 K=64 w_words=73728 insts=kernels/head.bin\n"
              "tokcase 6869 1,2\n"  // other runtimes' records are ignored
              "ref hello prompt=68 thinking=0\n",
              "", 0);
  try {
    NpuBundle::Open(dir.string());
    ADD_FAILURE() << "c_stride < N accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("manifest.txt:7"), std::string::npos) << e.what();
  }
  std::string m;
  {
    std::ifstream f(dir / "manifest.txt");
    m.assign(std::istreambuf_iterator<char>(f), {});
  }
  m.replace(m.find("c_stride=160"), 12, "c_stride=256");
  std::ofstream(dir / "manifest.txt") << m;
  const NpuBundle b = NpuBundle::Open(dir.string());
  ASSERT_EQ(b.kernels().size(), 4u);
  EXPECT_EQ(b.kernels()[0].spec.context, "gemm");  // ctx defaults by family
  EXPECT_EQ(b.kernels()[1].spec.chunks, 2);
  EXPECT_EQ(b.kernels()[1].spec.n, 256);
  EXPECT_EQ(b.kernels()[1].a_elems, 262144);
  EXPECT_EQ(b.kernels()[2].spec.rounding, kernels::npu::Rounding::kFloor);
  EXPECT_EQ(b.kernels()[3].spec.context, "gemv");
  EXPECT_EQ(b.kernels()[3].spec.family, kernels::npu::KernelFamily::kGemv);
  EXPECT_EQ(b.kernels()[3].m, 4096);
  EXPECT_EQ(b.MissingKernelFiles().size(), 6u);
  fs::remove_all(dir);
}

// A one-line glance::Error naming the file (and line) — not a crash, not std::length_error.
void ExpectBundleError(const fs::path& dir, const std::string& needle) {
  try {
    NpuBundle::Open(dir.string());
    ADD_FAILURE() << "accepted a bad bundle; wanted: " << needle;
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(needle), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(NpuBundle, BadManifestsAreNamedByFileAndLine) {
  const fs::path dir = TempDir("bad");
  auto expect = [&](const std::string& manifest, const std::string& needle) {
    WriteBundle(dir, manifest, "", 0);
    ExpectBundleError(dir, needle);
  };
  const std::string x = "version 1\nxclbin gemm k.xclbin K\n";
  expect("param D 64\n", "no version record");
  expect("version 2\n", "version 2, this runtime reads version 1");
  expect("version 1\nweight w N=64 K=512\n", "earlier Glance");
  expect("version 1\nparam layout glance-tiles-v1\n", "glance-tiles-v1");
  expect("version 1\nparam gemv_format bfp6s\n", "bfp6s");
  expect(x + "gemm q M=256 K=512 N=64 lda=512 c_stride=64 b_bytes=36864 a_elems=1 c_elems=1 ctx=nope insts=a.bin\n", "manifest.txt:3");
  expect(x + "gemm q M=128 K=512 N=64 lda=512 c_stride=64 b_bytes=36864 a_elems=1 c_elems=1 insts=a.bin\n", "multiple of 256");
  expect(x + "gemm q M=256 K=500 N=64 lda=512 c_stride=64 b_bytes=36000 a_elems=1 c_elems=1 insts=a.bin\n", "multiple of 512");
  expect(x + "gemm q M=256 K=512 N=64 lda=512 c_stride=64 b_bytes=65536 a_elems=1 c_elems=1 insts=a.bin\n", "NPU1");
  expect(x + "gemm q M=256 K=512 N=64 lda=512 c_stride=64 a_elems=1 c_elems=1 insts=a.bin\n", "`b_bytes=` missing");
  expect(x + "gemm q M=256 K=99999999999999999999 N=64 lda=512 c_stride=64 b_bytes=1 a_elems=1 c_elems=1 insts=a.bin\n", "up to 2^40");
  expect(x + "gemm q M=256 K=-512 N=64 lda=512 c_stride=64 b_bytes=1 a_elems=1 c_elems=1 insts=a.bin\n", "`K=-512`");
  expect(x + "gemm_chunks q 2 a_elems=1 c_elems=1 insts=a.bin\n", "before its gemm");
  fs::remove_all(dir);
}

TEST(NpuBundle, TensorIndexBoundsHoldForEveryHostileForm) {
  // Issue 12 item 7 and variants: offset + bytes wrapping past 2^64, byte counts far beyond a
  // 600-byte tensors.bin, negative, signed, hex, exponent and overlong numbers, misalignment.
  const fs::path dir = TempDir("bounds");
  const std::string v1 = "version 1\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"w u8 8 18446744073709551608 16\n", "offset"},          // offset + bytes wraps to 8
      {"w u8 8 64 18446744073709551560\n", "byte count"},      // bytes wraps offset + bytes
      {"w u8 8 0 2400000000\n", "byte count"},                // a 600-byte bundle claiming 2.4 GB
      {"w u8 8 0 601\n", "byte count 601"},
      {"w u8 8 592 16\n", "past the end of tensors.bin"},
      {"w u8 8 -64 16\n", "offset -64"},
      {"w u8 8 0 -1\n", "byte count -1"},
      {"w u8 8 +8 16\n", "offset +8"},
      {"w u8 8 0x10 16\n", "offset 0x10"},
      {"w u8 8 0 1e9\n", "byte count 1e9"},
      {"w u8 8 99999999999999999999999 16\n", "offset"},
      {"w u8 8 3 16\n", "8-byte aligned"},
      {"w f32 8 0 6\n", "whole number of f32"},
      {"w u8 1,-2 0 16\n", "shape"},
      {"w q4 8 0 16\n", "unknown dtype"},
      {"w u8 8 0\n", "expected <name>"},
      {"w u8 8 0 16 extra\n", "expected <name>"},
      {"w u8 8 0 16\nw u8 8 16 16\n", "defined twice"},
  };
  for (const auto& [line, needle] : cases) {
    WriteBundle(dir, v1, line, 600);
    ExpectBundleError(dir, needle);
    ExpectBundleError(dir, "tensors.txt:");
  }
  // A well-formed index whose tensor is not the size the model needs: refused before reading.
  WriteBundle(dir, v1, "head0 u8 600 0 600\n", 600);
  const NpuBundle b = NpuBundle::Open(dir.string());
  EXPECT_THROW(b.ReadBytes("head0", uint64_t{1} << 40), Error);
  EXPECT_THROW(b.ReadBytes("nope", 8), Error);
  EXPECT_EQ(b.ReadBytes("head0", 600).size(), 600u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace glance::npu
