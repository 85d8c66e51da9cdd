// glance-cli npu-export --model DIR --out BUNDLE: the weight part of an NPU bundle in IRON's
// format (core/npu/bundle_export.h). The kernels (xclbins, instruction streams, their manifest
// records) come from the IRON toolchain.
#include <cstdio>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "core/npu/bundle_export.h"
#include "core/npu/npu_bundle.h"

namespace glance::cli {

static int NpuExport(const Args& args) {
  ArgParser p(args, {"model", "out", "rounding"}, {});
  const auto model = p.Get("model");
  const auto out = p.Get("out");
  if (!model || !out) throw Error("usage: glance-cli npu-export --model DIR --out BUNDLE [--rounding conv_even|floor]");
  const kernels::npu::Rounding rounding = npu::ParseRounding(p.Get("rounding", "conv_even"), "--rounding");
  const npu::ExportSummary s = npu::ExportNpuBundle(*model, *out, rounding, [](double f, const std::string& what) {
    std::fprintf(stderr, "\r%3.0f%% %-70.70s", f * 100.0, what.c_str());
  });
  std::fprintf(stderr, "\n");
  std::printf("wrote %s: %d packed tensors, %.1f MB (bfp16ebs8, rounding %s)\n", out->c_str(), s.tensors,
              static_cast<double>(s.bytes) / 1e6, kernels::npu::RoundingName(rounding));
  return 0;
}

static Register reg("npu-export", "npu-export --model DIR --out BUNDLE [--rounding conv_even|floor]",
                    "pack a checkpoint's projection weights into an NPU bundle (bfp16ebs8)", NpuExport);

}  // namespace glance::cli
