// The whole reference check through the stand-in device (xrt_standin.h): the committed tiny-a
// bundle completed with the kernel records a toolchain would write for it — a gemm record and
// chunk streams per key, a gemv record per key, the vision tower on a third context — and an
// instruction stream file each (npu-export's placeholders, core/npu/bundle_kernels.h: the
// stand-in identifies a run by its stream and computes it with the emulator). Every projection of prefill and decode goes through the
// XRT call sequence with every contract rule checked, and the NPU gates hold. Negative control:
// the same bundle without the gemv `down` record falls back to the CPU and fails the
// dispatch gate.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/checks/npu_check.h"
#include "core/model/safetensors.h"
#include "core/npu/backend_select.h"
#include "core/npu/bundle_kernels.h"
#include "core/npu/dispatch_plan.h"
#include "core/npu/npu_bundle.h"

namespace glance::npu {
namespace {

namespace fs = std::filesystem;
const std::string kTiny = std::string(GLANCE_TEST_DATA) + "/tiny-a";
const std::string kFixture = std::string(GLANCE_TEST_DATA) + "/npu-bundle-tiny-a";

// Copies the fixture to `dir` with complete kernel records (all but `drop`, "gemv down" form).
void CompleteBundle(const fs::path& dir, const std::string& drop = "") {
  fs::remove_all(dir);
  fs::create_directories(dir / "kernels");
  for (const char* f : {"tensors.txt", "tensors.bin"}) fs::copy_file(fs::path(kFixture) / f, dir / f);
  std::ifstream in(fs::path(kFixture) / "manifest.txt");
  std::ostringstream mf;
  for (std::string line; std::getline(in, line);) {
    const std::string tag = line.substr(0, line.find(' '));
    if (tag != "xclbin" && tag != "gemm" && tag != "gemm_chunks" && tag != "gemv") mf << line << "\n";
  }
  // The records and placeholder files npu-export writes (bundle_kernels.h), one left out.
  const TensorStore store = TensorStore::OpenFolder(kTiny);
  const BundleWeightSource source(std::make_shared<const NpuBundle>(NpuBundle::Open(kFixture)), store);
  mf << WritePlaceholderKernels(source.plan(), dir.string(), drop);
  std::ofstream(dir / "manifest.txt") << mf.str();
}

checks::CheckReport Check(const fs::path& bundle) {
  checks::CheckOptions o;
  o.backend = BackendKind::kNpuEmu;
  o.npu_bundle = bundle.string();
  return checks::RunNpuCheck(kTiny, o, {});
}

TEST(NpuStandinCheck, TheGoldenRunsThroughTheStandinWithEveryProjectionDispatched) {
  const fs::path dir = fs::temp_directory_path() / ("glance_standin_bundle_" + std::to_string(::getpid()));
  CompleteBundle(dir);
  {
    const TensorStore store = TensorStore::OpenFolder(kTiny);
    const BackendChoice c = SelectBackend(BackendKind::kNpuEmu, dir.string(), store);
    EXPECT_NE(c.reason.find("stand-in"), std::string::npos) << c.reason;
  }
  const checks::CheckReport report = Check(dir);
  for (const auto& g : report.gates) EXPECT_TRUE(g.passed || g.skipped) << g.name << ": " << g.figure;
  EXPECT_TRUE(report.passed());
  // Negative control: no gemv record for down — its decode dispatches fall back to the CPU.
  CompleteBundle(dir, "gemv down");
  const checks::CheckReport broken = Check(dir);
  bool dispatch_gate_failed = false;
  for (const auto& g : broken.gates) dispatch_gate_failed |= g.name == "npu dispatches" && !g.passed;
  EXPECT_TRUE(dispatch_gate_failed);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace glance::npu

namespace glance::npu {
namespace {

// A gu GEMM record built without the paired epilogue (epilogue=none: IRON's flm.GEMM has no
// gate·up epilogue, npu_device.h) runs the raw pairs in prompts too, SwiGLU on the host: the plan
// follows the record, every projection still dispatches and the gates hold. (Before the plan
// followed the record, the sequence refused the dispatch: the epilogue mismatch.)
TEST(NpuStandinCheck, AGuRecordWithoutThePairedEpilogueRunsSwiGluOnTheHost) {
  const fs::path dir = fs::temp_directory_path() / ("glance_standin_gu_none_" + std::to_string(::getpid()));
  CompleteBundle(dir);
  std::ifstream in(dir / "manifest.txt");
  std::ostringstream mf;
  int edited = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("gemm gu ", 0) == 0) {
      line += " epilogue=none";
      ++edited;
    }
    mf << line << "\n";
  }
  in.close();
  ASSERT_EQ(edited, 1);
  std::ofstream(dir / "manifest.txt", std::ios::trunc) << mf.str();
  const NpuBundle b = NpuBundle::Open(dir.string());
  auto plan = PlanDispatch(BundleWeightSource(std::make_shared<const NpuBundle>(b), TensorStore::OpenFolder(kTiny)).plan());
  UseKernelEpilogues(plan, b.kernel_specs());
  int gu = 0;
  for (const auto& p : plan.projections)
    if (p.gemm_key == "gu") {
      EXPECT_EQ(p.prefill_epilogue, kernels::npu::Epilogue::kNone);
      ++gu;
    }
  EXPECT_GT(gu, 0);
  const checks::CheckReport report = Check(dir);
  for (const auto& g : report.gates) EXPECT_TRUE(g.passed || g.skipped) << g.name << ": " << g.figure;
  bool gu_prompt = false;
  for (const auto& g : report.gates)
    if (g.name == "npu dispatches") gu_prompt = g.figure.find("npu:gemm.gu.x") != std::string::npos;
  EXPECT_TRUE(gu_prompt);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace glance::npu
