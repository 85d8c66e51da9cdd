// glance-cli npu-status [--bundle DIR]: the NPU checklist auto goes by, one line per check.
// Exit 0 when every check passes (auto would pick the NPU), 1 otherwise.
#include <cstdio>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "core/npu/backend_select.h"
#include "core/npu/npu_detect.h"
#include "kernels/npu/npu_device.h"

namespace glance::cli {

static int NpuStatusCmd(const Args& args) {
  ArgParser p(args, {"bundle", "model"}, {});
  npu::DetectOptions o;
  o.bundle_dir = npu::FindBundleDir(p.Get("bundle", ""), p.Get("model", ""));
  const npu::NpuStatus st = npu::DetectNpu(o);
  std::printf("NPU status (XRT plugin: %s; the emulator is always available as --backend npu-emu)\n",
              kernels::npu::XrtCompiledIn() ? "loaded" : "not loadable, see the XRT check");
  for (const auto& c : st.checks)
    std::printf("  [%s] %-17s %s\n", c.passed ? " ok " : "FAIL", c.name.c_str(), c.detail.c_str());
  std::printf("auto backend: %s\n", st.ready() ? "npu" : ("cpu (" + st.summary() + ")").c_str());
  return st.ready() ? 0 : 1;
}

static Register reg("npu-status", "npu-status [--bundle DIR] [--model DIR]",
                    "check whether the NPU backend can run here (device, driver, firmware, memlock, XRT, bundle)",
                    NpuStatusCmd);

}  // namespace glance::cli
