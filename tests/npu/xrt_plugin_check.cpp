// The no-device test of the XRT dispatch, run by packaging/check-xrt.sh where XRT is installed
// but there is no NPU (CI): the plugin built against the real XRT loads through Glance's
// loader; xrt::device(0) fails with a clear reason; opening the bundle's kernels is a
// glance::Error, not a crash. `missing` mode is the negative control: a plugin path that does
// not exist must be reported as such. Plain main (no gtest: the sid chroot has only XRT).
//   xrt_plugin_check present   (GLANCE_NPU_XRT_PLUGIN = the built plugin)
//   xrt_plugin_check missing   (GLANCE_NPU_XRT_PLUGIN = a path that does not exist)
#include <cstdio>
#include <cstring>
#include <string>

#include "core/util/error.h"
#include "kernels/npu/xrt_plugin.h"

namespace npu = glance::kernels::npu;

static int failures = 0;
static void Expect(bool ok, const std::string& what) {
  std::printf("  [%s] %s\n", ok ? " ok " : "FAIL", what.c_str());
  failures += !ok;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "present";
  std::string why;
  const npu::XrtPlugin* plugin = npu::LoadXrtPlugin(&why);
  if (mode == "missing") {
    Expect(plugin == nullptr, "no plugin at the given path");
    Expect(why.find("not installed") != std::string::npos, "the reason says so: " + why);
    Expect(!npu::XrtDeviceOpens(&why), "XRT check fails: " + why);
    return failures ? 1 : 0;
  }
  Expect(plugin != nullptr, "plugin loads" + (plugin ? std::string(" (XRT ") + plugin->xrt_version + ")" : ": " + why));
  if (!plugin) return 1;
  Expect(npu::XrtCompiledIn(), "XrtCompiledIn() is true");
  const bool opens = npu::XrtDeviceOpens(&why);
  Expect(!opens, "no NPU here: xrt::device(0) does not open");
  Expect(why.find("xrt::device(0) failed") != std::string::npos && why.find("XRT ") == 0,
         "a clear reason: " + why);
  try {
    npu::XrtKernelSpec spec;
    spec.xclbin = "/nonexistent/gemm.xclbin";
    spec.insts = "/nonexistent/gemm.bin";
    spec.kernel_name = "MLIR_AIE";
    spec.context = "gemm";
    spec.k = 512;
    spec.n = 128;
    (void)npu::MakeXrtDevice({spec});
    Expect(false, "opening kernels without a device must fail");
  } catch (const glance::Error& e) {
    Expect(std::strstr(e.what(), "XRT failed") != nullptr, std::string("opening kernels is a clear error: ") + e.what());
  }
  std::printf("xrt_plugin_check: %s\n", failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}
