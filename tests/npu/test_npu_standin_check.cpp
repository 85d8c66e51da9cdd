// The whole reference check through the stand-in device (xrt_standin.h): the committed tiny-a
// bundle completed with the kernel records a toolchain would write for it — a gemm record and
// chunk streams per key, a gemv record per key, the vision tower on a third context — and an
// instruction stream file each (placeholder words: the stand-in identifies a run by its stream
// and computes it with the emulator). Every projection of prefill and decode goes through the
// XRT call sequence with every contract rule checked, and the NPU gates hold. Negative control:
// the same bundle without the gemv `down` record falls back to the CPU and fails the
// dispatch gate.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/checks/npu_check.h"
#include "core/model/safetensors.h"
#include "core/npu/backend_select.h"
#include "core/npu/dispatch_plan.h"
#include "core/npu/npu_bundle.h"

namespace glance::npu {
namespace {

namespace fs = std::filesystem;
using kernels::npu::PackedLayout;
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
  for (const char* ctx : {"gemm", "gemv", "vision"}) {
    mf << "xclbin " << ctx << " kernels/" << ctx << ".xclbin MLIR_AIE\n";
    std::ofstream(dir / "kernels" / (std::string(ctx) + ".xclbin")) << "placeholder";
  }
  const TensorStore store = TensorStore::OpenFolder(kTiny);
  auto bundle = std::make_shared<const NpuBundle>(NpuBundle::Open(kFixture));
  const BundleWeightSource source(bundle, store);
  std::map<std::string, const BundleTensorPlan*> tensors;
  for (const auto& t : source.plan().tensors) tensors[t.name] = &t;
  uint32_t stream = 0;
  auto insts = [&](const std::string& file) {
    const uint32_t words[4] = {0x06030100u, ++stream, stream * 2654435761u, 0xffu};
    std::ofstream(dir / "kernels" / file, std::ios::binary).write(reinterpret_cast<const char*>(words), sizeof words);
    return "kernels/" + file;
  };
  std::map<std::string, bool> written;
  for (const auto& p : PlanDispatch(source.plan()).projections) {
    const BundleTensorPlan& t = *tensors.at(p.tensors[0]);
    const auto g = kernels::npu::PackedShape(t.n, t.k, t.layout);
    const std::string ctx = p.gemm_key.rfind("vision.", 0) == 0 ? " ctx=vision" : "";
    if (!p.gemm_key.empty() && !written["gemm " + p.gemm_key]) {
      written["gemm " + p.gemm_key] = true;
      mf << "gemm " << p.gemm_key << " M=256 K=" << g.k_pad << " N=" << g.n_pad << " lda=" << g.k_pad
         << " c_stride=" << g.n_pad << " b_bytes=" << g.k_pad * g.n_pad / 8 * 9 << " a_elems=" << 256 * g.k_pad
         << " c_elems=" << 256 * g.n_pad << ctx << " insts=" << insts("gemm_" + p.gemm_key + ".bin") << "\n";
      for (int n = 2; n <= 4; ++n)
        mf << "gemm_chunks " << p.gemm_key << " " << n << " a_elems=" << n * 256 * g.k_pad << " c_elems="
           << n * 256 * g.n_pad << " insts=" << insts("gemm_" + p.gemm_key + "_x" + std::to_string(n) + ".bin") << "\n";
    }
    if (!written["gemv " + p.gemv_key] && "gemv " + p.gemv_key != drop) {
      written["gemv " + p.gemv_key] = true;
      mf << "gemv " << p.gemv_key << " M=" << g.n_pad << " K=" << g.k_pad << " w_words=" << g.k_pad * g.n_pad / 8 * 9 / 4
         << ctx << " insts=" << insts("gemv_" + p.gemv_key + ".bin") << "\n";
    }
  }
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
