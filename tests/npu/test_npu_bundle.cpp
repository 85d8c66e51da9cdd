// Bundles: export from the golden checkpoint, read back, and bad manifests named by line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/model/safetensors.h"
#include "core/npu/npu_bundle.h"
#include "kernels/npu/bfp16.h"

namespace glance::npu {
namespace {

namespace fs = std::filesystem;
const std::string kTiny = std::string(GLANCE_TEST_DATA) + "/tiny-a";

fs::path TempDir(const std::string& tag) {
  const fs::path p = fs::temp_directory_path() / ("glance_npu_bundle_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

TEST(NpuBundle, ExportThenOpenGivesThePackedCheckpointWeights) {
  const fs::path dir = TempDir("export");
  const ExportSummary s = ExportNpuBundle(kTiny, dir.string());
  EXPECT_GT(s.weights, 10);
  const NpuBundle b = NpuBundle::Open(dir.string());
  EXPECT_EQ(b.param("format"), "bfp16ebs8");
  EXPECT_EQ(b.tile_n(), 64);
  EXPECT_TRUE(b.kernels().empty());  // kernels come from IRON
  const TensorStore store = TensorStore::OpenFolder(kTiny);
  // Every projection weight is there and equals packing the checkpoint tensor directly.
  for (const char* name : {"model.language_model.layers.0.mlp.down_proj.weight", "lm_head.weight",
                           "model.visual.patch_embed.proj.weight", "model.visual.blocks.0.attn.qkv.weight"}) {
    const auto p = b.ReadWeight(name);
    ASSERT_TRUE(p) << name;
    const TensorView& v = store.Get(name);
    const std::vector<float> w = v.ToF32();
    const auto direct = kernels::npu::PackWeight(w.data(), v.shape[0], v.numel() / v.shape[0]);
    EXPECT_EQ(p->bytes, direct.bytes) << name;
  }
  for (const char* absent : {"model.language_model.embed_tokens.weight", "model.visual.pos_embed.weight",
                             "model.language_model.layers.0.linear_attn.conv1d.weight",
                             "model.language_model.norm.weight"})
    EXPECT_FALSE(b.ReadWeight(absent)) << absent;
  fs::remove_all(dir);
}

TEST(NpuBundle, BadManifestsAreNamedByFileAndLine) {
  const fs::path dir = TempDir("bad");
  fs::create_directories(dir);
  std::ofstream(dir / "tensors.txt") << "";
  std::ofstream(dir / "tensors.bin") << "";
  auto expect_error = [&](const std::string& manifest, const std::string& needle) {
    std::ofstream(dir / "manifest.txt") << manifest;
    try {
      NpuBundle::Open(dir.string());
      ADD_FAILURE() << "accepted: " << manifest;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error("param tile_n 64\n", "no version record");
  expect_error("version 2\n", "version 2, this runtime reads version 1");
  expect_error("version 1\ngemm q M=256 K=512 N=64 chunks=1 ctx=nope insts=a.bin\n", "manifest.txt:2");
  expect_error("version 1\nxclbin p k.xclbin K\ngemm q M=128 K=512 N=64 chunks=1 ctx=p insts=a.bin\n", "M=256");
  expect_error("version 1\nxclbin p k.xclbin K\ngemm q M=256 K=500 N=64 chunks=1 ctx=p insts=a.bin\n", "multiple of 512");
  expect_error("version 1\nweight w N=64 K=512\n", "not in tensors.txt");
  std::ofstream(dir / "manifest.txt") << "version 1\n";
  std::ofstream(dir / "tensors.txt") << "w u8 64,512 0 36864\n";
  EXPECT_THROW(NpuBundle::Open(dir.string()), std::runtime_error);  // runs past tensors.bin
  fs::remove_all(dir);
}

TEST(NpuBundle, AWrongSizedWeightIsRefused) {
  const fs::path dir = TempDir("size");
  fs::create_directories(dir);
  std::ofstream(dir / "manifest.txt") << "version 1\nweight w N=64 K=512\n";
  std::ofstream(dir / "tensors.txt") << "w u8 64,512 0 100\n";
  std::ofstream(dir / "tensors.bin") << std::string(100, '\0');
  const NpuBundle b = NpuBundle::Open(dir.string());
  EXPECT_THROW(b.ReadWeight("w"), std::runtime_error);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace glance::npu
