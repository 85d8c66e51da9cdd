// glance-cli npu-status [--bundle DIR]: the NPU checklist auto goes by, one line per check.
// Exit 0 when every check passes (auto would pick the NPU), 1 otherwise.
#include <cstdio>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "core/npu/backend_select.h"
#include "core/npu/npu_detect.h"

namespace glance::cli {

static int NpuStatusCmd(const Args& args) {
  ArgParser p(args, {"bundle", "model"}, {});
  const std::string bundle = p.Get("bundle", ""), model = p.Get("model", "");
  std::printf("%s\n", npu::NpuChecklist(bundle, model).c_str());
  npu::DetectOptions o;
  o.bundle_dir = npu::FindBundleDir(bundle, model);
  return npu::DetectNpu(o).ready() ? 0 : 1;
}

static Register reg("npu-status", "npu-status [--bundle DIR] [--model DIR]",
                    "check whether the NPU backend can run here (device, driver, firmware, memlock, XRT, bundle)",
                    NpuStatusCmd);

}  // namespace glance::cli
