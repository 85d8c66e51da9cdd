#include "kernels/cpu/cpu_features.h"


#include <hwy/highway.h>
#include <hwy/targets.h>

#include "kernels/cpu/gemv_int8.h"
#include "kernels/kernel_error.h"

namespace glance::kernels {

void LimitCpuFeatures(const std::string& level) {
  if (level == "native" || level.empty()) {
    hwy::DisableTargets(0);
    SelectInt8KernelIsa("");
    return;
  }
  if (level != "avx2") throw Error("--cpu: CPU level '" + level + "' is not one of native, avx2");
#if HWY_ARCH_X86
  if (!Int8KernelsAvailable()) throw Error("--cpu avx2: this CPU has no AVX2 + FMA");
  hwy::DisableTargets(HWY_AVX3 | HWY_AVX3_DL);
  SelectInt8KernelIsa("avx2");
#else
  throw Error("--cpu avx2: needs an x86-64 CPU");
#endif
}

std::string CpuFeaturesInUse() {
  // Highway's best target is the lowest set bit of the supported ∩ compiled mask.
  const int64_t supported = hwy::SupportedTargets();
  // Highway 1.0.3's SupportedTargets() re-detects and points the dispatch at every target the
  // CPU has before masking out the disabled ones: re-aim it at what is enabled.
  hwy::GetChosenTarget().Update(supported);
  const int64_t targets = supported & HWY_TARGETS;
  const std::string hwy_name = targets ? hwy::TargetName(targets & -targets) : "none";
  return "Highway " + hwy_name + ", x86 GEMV " + Int8KernelName();
}

}  // namespace glance::kernels
