#include "core/npu/backend_select.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <unordered_map>

#include "core/npu/dispatch_plan.h"
#include "core/npu/npu_bundle.h"
#include "core/model/safetensors.h"
#include "core/npu/npu_detect.h"
#include "core/util/error.h"
#include "kernels/npu/npu_backend.h"
#include "kernels/npu/npu_device.h"
#include "kernels/npu/xrt_api.h"
#include "kernels/npu/xrt_standin.h"

namespace glance::npu {

namespace fs = std::filesystem;

std::string FindBundleDir(const std::string& requested, const std::string& model_dir) {
  if (!requested.empty()) return requested;
  if (const char* env = std::getenv("GLANCE_NPU_BUNDLE"); env && *env) return env;
  std::error_code ec;
  const fs::path local = fs::path(model_dir) / "npu-bundle";
  return fs::is_regular_file(local / "manifest.txt", ec) ? local.string() : std::string();
}

std::string NpuChecklist(const std::string& requested_bundle, const std::string& model_dir) {
  DetectOptions o;
  o.bundle_dir = FindBundleDir(requested_bundle, model_dir);
  const NpuStatus st = DetectNpu(o);
  std::string out = std::string("NPU status (XRT plugin: ") +
                    (kernels::npu::XrtCompiledIn() ? "loaded" : "not loadable, see the XRT check") +
                    "; the emulator is always available as --backend npu-emu)\n";
  for (const auto& c : st.checks) {
    std::string name = c.name;
    name.resize(std::max<size_t>(name.size(), 17), ' ');
    out += std::string("  [") + (c.passed ? " ok " : "FAIL") + "] " + name + " " + c.detail + "\n";
  }
  out += "auto backend: " + (st.ready() ? std::string("npu") : "cpu (" + st.summary() + ")");
  return out;
}

// Checkpoint weight data → tensor name: how the backend finds a projection in the plan.
static std::unordered_map<const void*, std::string> WeightNames(const TensorStore& store) {
  std::unordered_map<const void*, std::string> names;
  for (const auto& [name, view] : store.all()) names[view->data] = name;
  return names;
}

static BackendChoice Emulator(const std::string& bundle_dir, const TensorStore& store) {
  BackendChoice c;
  c.name = "npu-emu";
  std::unique_ptr<kernels::npu::WeightSource> source;
  kernels::npu::FusedPlan plan;
  kernels::npu::Rounding rounding = kernels::npu::Rounding::kConvEven;  // IRON's flm.GEMM default
  if (!bundle_dir.empty()) {
    auto bundle = std::make_shared<const NpuBundle>(NpuBundle::Open(bundle_dir));
    auto s = std::make_unique<BundleWeightSource>(bundle, store);
    plan = PlanDispatch(s->plan());
    source = std::move(s);
    rounding = bundle->rounding();
    c.reason = "NPU emulator requested; the fused kernels of bundle " + bundle_dir + " (rounding " +
               kernels::npu::RoundingName(rounding) + ")";
    // A bundle with its kernel records and files runs through the stand-in device: the XRT call
    // sequence the hardware gets, every rule of the contract checked (xrt_standin.h).
    if (!bundle->kernels().empty() && bundle->MissingKernelFiles().empty()) {
      const auto specs = bundle->kernel_specs();
      UseKernelEpilogues(plan, specs);
      c.backend = std::make_unique<kernels::npu::NpuBackend>(
          kernels::npu::MakeSequenceDevice(std::make_unique<kernels::npu::StandinXrt>(specs), specs, "npu-emu"),
          std::move(source), std::move(plan), WeightNames(store));
      c.reason += ", dispatched through the stand-in device (the XRT sequence, every rule checked)";
      return c;
    }
  } else {
    auto s = std::make_unique<CheckpointTensorSource>(store, rounding);
    plan = PlanDispatch(s->plan());
    source = std::move(s);
    c.reason = "NPU emulator requested; fused kernels packed to bfp16ebs8 at load (no bundle)";
  }
  c.backend = std::make_unique<kernels::npu::NpuBackend>(kernels::npu::MakeEmulatorDevice(4, rounding), std::move(source),
                                                         std::move(plan), WeightNames(store));
  return c;
}

static BackendChoice Hardware(const std::string& bundle_dir, const TensorStore& store) {
  auto bundle = std::make_shared<const NpuBundle>(NpuBundle::Open(bundle_dir));
  BackendChoice c;
  c.name = "npu";
  auto source = std::make_unique<BundleWeightSource>(bundle, store);
  kernels::npu::FusedPlan plan = PlanDispatch(source->plan());
  UseKernelEpilogues(plan, bundle->kernel_specs());
  c.backend = std::make_unique<kernels::npu::NpuBackend>(kernels::npu::MakeXrtDevice(bundle->kernel_specs()),
                                                         std::move(source), std::move(plan), WeightNames(store));
  c.reason = "NPU: every check passed; bundle " + bundle_dir;
  return c;
}

BackendChoice SelectBackend(BackendKind requested, const std::string& bundle_dir, const TensorStore& store) {
  if (requested == BackendKind::kCpu) return {std::make_unique<kernels::CpuBackend>(), "cpu", "CPU requested"};
  if (requested == BackendKind::kNpuEmu) return Emulator(bundle_dir, store);
  DetectOptions o;
  o.bundle_dir = bundle_dir;
  const NpuStatus st = DetectNpu(o);
  if (st.ready()) return Hardware(bundle_dir, store);
  if (requested == BackendKind::kNpu)
    throw Error("backend 'npu' is not available: " + st.summary() + " (glance-cli npu-status shows every check)");
  return {std::make_unique<kernels::CpuBackend>(), "cpu", "no usable NPU (" + st.summary() + "); using the CPU"};
}

}  // namespace glance::npu
