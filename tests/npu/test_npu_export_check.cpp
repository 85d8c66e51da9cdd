// The "done when": a bundle `npu-export` makes (weights and the kernel records with
// placeholder streams, bundle_kernels.h) runs through the stand-in device with every
// projection of prefill and decode dispatched and none falling back, and the NPU check's gates
// hold — on the demo model and on a checkpoint with the released models' head geometry
// (real_geometry_model.h). Their reference outputs come from the f32 CPU engine
// (engine_reference.h; no Hugging Face golden exists for them). Negative control: the same
// export with one record taken out of its manifest falls back and fails the dispatch gate.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/checks/engine_reference.h"
#include "core/checks/npu_check.h"
#include "core/model/safetensors.h"
#include "core/npu/backend_select.h"
#include "core/npu/bundle_export.h"
#include "core/npu/npu_bundle.h"
#include "core/npu/npu_detect.h"
#include "core/util/error.h"
#include "tests/npu/real_geometry_model.h"

namespace glance::npu {
namespace {

namespace fs = std::filesystem;
const std::string kResources = GLANCE_SOURCE_RESOURCES;

checks::CheckReport Check(const fs::path& ref, const fs::path& bundle) {
  checks::CheckOptions o;
  o.threads = 2;
  o.backend = BackendKind::kNpuEmu;
  o.npu_bundle = bundle.string();
  return checks::RunNpuCheck(ref.string(), o, [](const checks::GateResult& g) {
    std::printf("%-5s %-28s %s   [%s]\n", g.skipped ? "SKIP" : g.passed ? "PASS" : "FAIL", g.name.c_str(),
                g.figure.c_str(), g.limit.c_str());
  });
}

const checks::GateResult* FindGate(const checks::CheckReport& r, const std::string& name) {
  for (const auto& g : r.gates)
    if (g.name == name) return &g;
  return nullptr;
}

// Takes every record starting with `prefix` out of the bundle's manifest.
void DropRecords(const fs::path& bundle, const std::string& prefix) {
  std::ifstream in(bundle / "manifest.txt");
  std::ostringstream kept;
  int dropped = 0;
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) ++dropped;
    else kept << line << "\n";
  in.close();
  ASSERT_GT(dropped, 0) << prefix;
  std::ofstream(bundle / "manifest.txt", std::ios::trunc) << kept.str();
}

void ExportAndCheck(const std::string& model_dir, const std::string& tag) {
  const fs::path root = fs::temp_directory_path() / (tag + "_" + std::to_string(::getpid()));
  fs::remove_all(root);
  checks::EngineReferenceOptions ro;
  ro.model_dir = model_dir;
  ro.image = kResources + "/demo-image.png";
  ro.steps = 16;
  ro.threads = 2;
  checks::WriteEngineReference(ro, (root / "ref").string());
  ExportNpuBundle(model_dir, (root / "bundle").string());

  // The export is complete: every record's file is there, and the stand-in runs it; it is
  // marked as placeholder kernels, which npu-status refuses for an NPU.
  const NpuBundle b = NpuBundle::Open((root / "bundle").string());
  EXPECT_FALSE(b.kernels().empty());
  EXPECT_TRUE(b.MissingKernelFiles().empty());
  {
    const TensorStore store = TensorStore::OpenFolder(model_dir);
    const BackendChoice c = SelectBackend(BackendKind::kNpuEmu, (root / "bundle").string(), store);
    EXPECT_NE(c.reason.find("stand-in"), std::string::npos) << c.reason;
    DetectOptions d;
    d.bundle_dir = (root / "bundle").string();
    bool refused = false;
    for (const auto& chk : DetectNpu(d).checks)
      if (chk.name == "bundle") refused = !chk.passed && chk.detail.find("placeholder") != std::string::npos;
    EXPECT_TRUE(refused) << "npu-status must refuse placeholder kernels for an NPU";
  }

  const checks::CheckReport report = Check(root / "ref", root / "bundle");
  for (const auto& g : report.gates) EXPECT_TRUE(g.passed || g.skipped) << tag << " " << g.name << ": " << g.figure;
  const checks::GateResult* d = FindGate(report, "npu dispatches");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->figure.find("cpu:fallback"), std::string::npos) << d->figure;
  for (const char* key : {"npu:gemm.lin.", "npu:gemm.att.", "npu:gemm.o.", "npu:gemm.gu.", "npu:gemm.down.",
                          "npu:gemv.lin", "npu:gemv.att", "npu:gemv.o", "npu:gemv.gu", "npu:gemv.down", "npu:gemv.head"})
    EXPECT_NE(d->figure.find(key), std::string::npos) << key << " not dispatched: " << d->figure;

  // Negative control: no gemv record for down — its decode dispatches fall back to the CPU.
  DropRecords(root / "bundle", "gemv down ");
  const checks::CheckReport broken = Check(root / "ref", root / "bundle");
  const checks::GateResult* bd = FindGate(broken, "npu dispatches");
  ASSERT_NE(bd, nullptr);
  EXPECT_FALSE(bd->passed) << bd->figure;
  EXPECT_NE(bd->figure.find("cpu:fallback"), std::string::npos) << bd->figure;
  fs::remove_all(root);
}

TEST(NpuExportCheck, TheDemoModelsExportRunsThroughTheStandinAndPassesTheGates) {
  ExportAndCheck(kResources + "/demo-model", "glance_npu_export_demo");
}

TEST(NpuExportCheck, ARealHeadGeometryExportRunsThroughTheStandinAndPassesTheGates) {
  const fs::path model = MakeRealGeometryModel("glance_npu_export_geometry_model");
  ExportAndCheck(model.string(), "glance_npu_export_geometry");
  fs::remove_all(model);
}

// make-reference's bad input: one line naming what is wrong.
TEST(NpuExportCheck, AnEngineReferenceRefusesBadInputByName) {
  const fs::path out = fs::temp_directory_path() / ("glance_engine_ref_bad_" + std::to_string(::getpid()));
  auto error_of = [&](checks::EngineReferenceOptions o) {
    try {
      checks::WriteEngineReference(o, out.string());
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  checks::EngineReferenceOptions o;
  o.model_dir = kResources + "/demo-model";
  o.image = kResources + "/demo-image.png";
  o.steps = 1;
  EXPECT_NE(error_of(o).find("steps must be at least 2"), std::string::npos) << error_of(o);
  o.steps = 4;
  o.model_dir = kResources;  // no config.json there
  EXPECT_NE(error_of(o).find(kResources + " has no config.json"), std::string::npos) << error_of(o);
  o.model_dir = kResources + "/demo-model";
  o.image = kResources + "/no-such.png";
  EXPECT_NE(error_of(o).find("no image file " + kResources + "/no-such.png"), std::string::npos) << error_of(o);
  fs::remove_all(out);
}

}  // namespace
}  // namespace glance::npu
