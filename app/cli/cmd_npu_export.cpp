// glance-cli npu-export --model DIR --out BUNDLE: the weight part of an NPU bundle (manifest
// params and weight records, tensors.txt, tensors.bin in bfp16ebs8 tile order). The kernels
// (xclbins, instruction streams, their manifest records) come from the IRON toolchain.
#include <cstdio>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "core/npu/npu_bundle.h"

namespace glance::cli {

static int NpuExport(const Args& args) {
  ArgParser p(args, {"model", "out", "tile-n"}, {});
  const auto model = p.Get("model");
  const auto out = p.Get("out");
  if (!model || !out) throw Error("usage: glance-cli npu-export --model DIR --out BUNDLE [--tile-n 64]");
  const int64_t tile_n = p.GetInt("tile-n", kernels::npu::kDefaultTileN);
  const npu::ExportSummary s = npu::ExportNpuBundle(*model, *out, tile_n, [](double f, const std::string& what) {
    std::fprintf(stderr, "\r%3.0f%% %-70.70s", f * 100.0, what.c_str());
  });
  std::fprintf(stderr, "\n");
  std::printf("wrote %s: %d packed weights, %.1f MB (bfp16ebs8, tile_n %lld)\n", out->c_str(), s.weights,
              static_cast<double>(s.bytes) / 1e6, static_cast<long long>(tile_n));
  return 0;
}

static Register reg("npu-export", "npu-export --model DIR --out BUNDLE [--tile-n 64]",
                    "pack a checkpoint's projection weights into an NPU bundle (bfp16ebs8)", NpuExport);

}  // namespace glance::cli
