// Builds without XRT (the default here: Debian 12's libxrt-dev 2.13 predates XDNA): the XRT
// device is absent and says how to get it. Replaced by xrt_device.cpp when CMake finds XRT.
#include "core/util/error.h"
#include "kernels/npu/npu_device.h"

namespace glance::kernels::npu {

std::unique_ptr<NpuDevice> MakeXrtDevice(const std::vector<XrtKernelSpec>&) {
  throw Error("this build has no XRT: install XRT >= 2.18 (/opt/xilinx/xrt) and reconfigure; "
              "see kernels/npu/README.md");
}

bool XrtCompiledIn() { return false; }

bool XrtDeviceOpens(std::string* why) {
  if (why) *why = "this build has no XRT (built without XRT >= 2.18; see kernels/npu/README.md)";
  return false;
}

}  // namespace glance::kernels::npu
