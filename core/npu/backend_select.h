#pragma once
// Backend choice at load (EngineOptions::backend):
//   kCpu     the CPU (kernels::Matmul; the f32 reference path)
//   kNpuEmu  the NPU emulator: the bundle's packed weights when a bundle is found, else the
//            checkpoint packed to bfp16ebs8 on the fly (so it works on any model folder)
//   kNpu     the NPU through XRT; throws naming the failed check when it cannot
//   kAuto    the NPU when every DetectNpu check passes, else the CPU, saying which failed
#include <memory>
#include <string>

#include "core/npu/backend_kind.h"
#include "kernels/backend.h"

namespace glance {
class TensorStore;
}

namespace glance::npu {

struct BackendChoice {
  std::unique_ptr<kernels::Backend> backend;  // never null
  std::string name;                           // "cpu", "npu-emu", "npu"
  std::string reason;                         // why, for ModelInfo / Stats
};

// The bundle folder to use: `requested` if set, else $GLANCE_NPU_BUNDLE, else
// <model_dir>/npu-bundle when it exists, else "".
std::string FindBundleDir(const std::string& requested, const std::string& model_dir);

// The whole NPU checklist `auto` goes by, for the bundle FindBundleDir picks: a header line,
// one "[ ok ] / [FAIL] name  detail" line per check, and what `auto` picks. Shown by
// `glance-cli npu-status` and under the GUI's backend setting.
std::string NpuChecklist(const std::string& requested_bundle, const std::string& model_dir);

// Throws glance::Error when kNpu cannot be had.
// `store` must outlive the backend (bundle lookups map its tensor addresses).
BackendChoice SelectBackend(BackendKind requested, const std::string& bundle_dir,
                            const TensorStore& store);

}  // namespace glance::npu
