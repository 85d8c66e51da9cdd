// glance-cli npu-export --model DIR --out BUNDLE [--weights-only]: an NPU bundle in IRON's format
// (core/npu/bundle_export.h): the packed weights, and the kernel records with placeholder
// xclbins and instruction streams (core/npu/bundle_kernels.h) that run through the stand-in
// device (--backend npu-emu); the real kernels come from the IRON toolchain. --weights-only
// writes no kernel records or files (to add IRON's).
#include <cstdio>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "core/npu/bundle_export.h"
#include "core/npu/npu_bundle.h"

namespace glance::cli {

static int NpuExport(const Args& args) {
  ArgParser p(args, {"model", "out", "rounding"}, {"weights-only"});
  const auto model = p.Get("model");
  const auto out = p.Get("out");
  if (!model || !out) throw Error("usage: glance-cli npu-export --model DIR --out BUNDLE [--rounding conv_even|floor] [--weights-only]");
  const kernels::npu::Rounding rounding = npu::ParseRounding(p.Get("rounding", "conv_even"), "--rounding");
  const npu::ExportSummary s = npu::ExportNpuBundle(*model, *out, rounding, [](double f, const std::string& what) {
    std::fprintf(stderr, "\r%3.0f%% %-70.70s", f * 100.0, what.c_str());
  }, !p.Has("weights-only"));
  std::fprintf(stderr, "\n");
  std::printf("wrote %s: %d packed tensors, %.1f MB (bfp16ebs8, rounding %s)%s\n", out->c_str(), s.tensors,
              static_cast<double>(s.bytes) / 1e6, kernels::npu::RoundingName(rounding),
              p.Has("weights-only") ? "; no kernels (add IRON's)"
                                    : "; placeholder kernels for the stand-in device (--backend npu-emu), not for an NPU");
  return 0;
}

static Register reg("npu-export", "npu-export --model DIR --out BUNDLE [--rounding conv_even|floor] [--weights-only]",
                    "pack a checkpoint's projection weights into an NPU bundle (bfp16ebs8)", NpuExport);

}  // namespace glance::cli
