// main() of the kernel tests: runs every test with the Highway dispatch pinned to one target,
// so the AVX2 (or SSE4, EMU128, ...) code paths run in tests on a machine whose best target
// is AVX-512 — otherwise only the best target ever runs. ctest registers each kernel test
// once per target name (tests/kernels/CMakeLists.txt):
//   GLANCE_HWY_TARGET=AVX2 test_kernel_ops
// A target this build did not compile or this CPU lacks exits 77 (ctest: skipped). Without the
// variable the tests run on the best target, as the product does.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <hwy/targets.h>

#include "kernels/cpu/gemv_kernels.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const char* want = std::getenv("GLANCE_HWY_TARGET");
  if (want && *want) {
    int64_t target = 0;
    std::string available;
    for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
      available += std::string(" ") + hwy::TargetName(t);
      if (want == std::string(hwy::TargetName(t))) target = t;
    }
    if (target == 0) {
      std::printf("Highway target %s is not compiled in or not on this CPU (have:%s): skipped\n",
                  want, available.c_str());
      return 77;
    }
    if (target == hwy::SupportedAndGeneratedTargets().front()) {
      std::printf("Highway target %s is this CPU's best: the unpinned run covers it, skipped\n", want);
      return 77;
    }
    hwy::SetSupportedTargetsForTest(target);
    // The pin must reach the kernels' dispatch tables, or the run would test the best target
    // under another name.
    const int64_t used = glance::kernels::detail::DispatchedTarget();
    if (used != target) {
      std::fprintf(stderr, "GLANCE_HWY_TARGET=%s: kernels dispatch to %s instead\n", want,
                   hwy::TargetName(used));
      return 1;
    }
    std::printf("Highway target pinned: %s\n", want);
  }
  return RUN_ALL_TESTS();
}
