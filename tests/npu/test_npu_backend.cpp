// The NPU backend over the emulator: chunking, padding, dispatch order, fallback, CPU seam.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/backend.h"
#include "kernels/cpu/thread_pool.h"
#include "kernels/npu/emulate_gemm.h"
#include "tests/npu/npu_test_data.h"
#include "kernels/npu/npu_backend.h"

namespace glance::kernels::npu {
namespace {

std::vector<float> Random(size_t n, uint32_t seed, float scale) { return test_data::RandomNormal(n, seed, scale); }

WeightRef F32Ref(const std::vector<float>& w, int64_t n, int64_t k) {
  WeightRef r;
  r.type = WeightType::F32;
  r.data = w.data();
  r.rows = n;
  r.cols = k;
  return r;
}

class NoWeights final : public WeightSource {
 public:
  std::optional<PackedWeight> Find(const WeightRef&) const override { return std::nullopt; }
};

TEST(NpuBackend, ChunksPromptsOf1_255_256_257_1000RowsExactly) {
  const int64_t n = 72, k = 96;  // neither fits the NPU tiles: K and N are zero-padded
  const auto w = Random(static_cast<size_t>(n * k), 1, 0.1f);
  const auto bias = Random(static_cast<size_t>(n), 2, 1.0f);
  ThreadPool pool(2);
  NpuBackend be(MakeEmulatorDevice(/*max_chunks=*/2), std::make_unique<PackingWeightSource>());
  be.set_log_dispatches(true);
  const WeightRef ref = F32Ref(w, n, k);
  const std::vector<std::pair<int64_t, std::vector<std::string>>> cases = {
      {1, {"gemv.proj"}},
      {255, {"gemm.proj.x1"}},
      {256, {"gemm.proj.x1"}},
      {257, {"gemm.proj.x2"}},
      {1000, {"gemm.proj.x2", "gemm.proj.x2"}},  // 512 rows per dispatch at most, the last 488 padded to 512
  };
  size_t logged = 0;
  for (const auto& [m, dispatches] : cases) {
    const auto x = Random(static_cast<size_t>(m * k), static_cast<uint32_t>(m), 1.0f);
    ASSERT_TRUE(be.Supports(OpForRows(m), m, ref));
    std::vector<float> got(static_cast<size_t>(m * n)), want(got.size());
    be.Project(x.data(), m, ref, bias.data(), got.data(), &pool);
    ReferenceBfpMatmul(x.data(), m, w.data(), n, k, Rounding::kConvEven, want.data());
    for (int64_t i = 0; i < m * n; ++i) ASSERT_EQ(got[i], want[i] + bias[i % n]) << "m=" << m << " at " << i;
    const auto log = be.DispatchLog();
    ASSERT_EQ(log.size(), logged + dispatches.size()) << "m=" << m;
    for (size_t d = 0; d < dispatches.size(); ++d) EXPECT_EQ(log[logged + d], dispatches[d]) << "m=" << m;
    logged = log.size();
  }
  // A count per kernel key: one instruction stream per chunk count.
  int64_t x1 = 0, x2 = 0, gemv = 0;
  for (const auto& s : be.Stats()) {
    if (s.name == "npu:gemm.proj.x1") x1 = s.calls;
    if (s.name == "npu:gemm.proj.x2") x2 = s.calls;
    if (s.name == "npu:gemv.proj") gemv = s.calls;
  }
  EXPECT_EQ(x1, 2);
  EXPECT_EQ(x2, 3);
  EXPECT_EQ(gemv, 1);
}

TEST(NpuBackend, WeightsArePackedOnceAndReused) {
  const auto w = Random(64 * 64, 3, 0.1f);
  NpuBackend be(MakeEmulatorDevice(), std::make_unique<PackingWeightSource>());
  const WeightRef ref = F32Ref(w, 64, 64);
  const auto x = Random(64, 4, 1.0f);
  std::vector<float> y1(64), y2(64);
  be.Project(x.data(), 1, ref, nullptr, y1.data(), nullptr);
  be.Project(x.data(), 1, ref, nullptr, y2.data(), nullptr);
  EXPECT_EQ(y1, y2);
}

TEST(NpuBackend, MissingWeightFallsBackToTheCpuBitForBit) {
  const auto w = Random(40 * 24, 5, 0.1f);
  const auto x = Random(3 * 24, 6, 1.0f);
  const WeightRef ref = F32Ref(w, 40, 24);
  NpuBackend be(MakeEmulatorDevice(), std::make_unique<NoWeights>());
  EXPECT_FALSE(be.Supports(ProjectionOp::kGemm, 3, ref));
  std::vector<float> via(3 * 40), cpu(3 * 40);
  Compute{&be, nullptr}.Project(x.data(), 3, ref, nullptr, via.data());
  Matmul(x.data(), 3, ref, nullptr, cpu.data(), nullptr);
  EXPECT_EQ(via, cpu);
  // And through the emulator the same call differs (bf16 / bfp16 numerics): a negative control.
  NpuBackend emu(MakeEmulatorDevice(), std::make_unique<PackingWeightSource>());
  std::vector<float> npu(3 * 40);
  Compute{&emu, nullptr}.Project(x.data(), 3, ref, nullptr, npu.data());
  EXPECT_NE(npu, cpu);
}

TEST(CpuBackend, IsExactlyMatmul) {
  const auto w = Random(33 * 17, 7, 0.1f);
  const auto x = Random(5 * 17, 8, 1.0f);
  const auto b = Random(33, 9, 1.0f);
  const WeightRef ref = F32Ref(w, 33, 17);
  ThreadPool pool(2);
  CpuBackend cpu;
  std::vector<float> a(5 * 33), m(5 * 33);
  Compute{&cpu, &pool}.Project(x.data(), 5, ref, b.data(), a.data());
  Matmul(x.data(), 5, ref, b.data(), m.data(), &pool);
  EXPECT_EQ(a, m);
}

TEST(NpuEmulator, RejectsDispatchesTheHardwareCouldNotRun) {
  auto dev = MakeEmulatorDevice(2);
  const std::vector<float> w(64 * 512, 0.25f);
  const int h = dev->UploadWeight(PackWeight(w.data(), 64, 512));
  std::vector<uint16_t> a(3 * 256 * 512), c(3 * 256 * 128);  // N pads to tile_n 128
  EXPECT_THROW(dev->Run(KernelFamily::kGemm, h, a.data(), 100, c.data(), nullptr, Epilogue::kNone, "proj"), std::runtime_error);
  EXPECT_THROW(dev->Run(KernelFamily::kGemm, h, a.data(), 768, c.data(), nullptr, Epilogue::kNone, "proj"), std::runtime_error);
  EXPECT_THROW(dev->Run(KernelFamily::kGemv, h, a.data(), 2, c.data(), nullptr, Epilogue::kNone, "proj"), std::runtime_error);
  EXPECT_NO_THROW(dev->Run(KernelFamily::kGemm, h, a.data(), 512, c.data(), nullptr, Epilogue::kNone, "proj"));
}

}  // namespace
}  // namespace glance::kernels::npu
