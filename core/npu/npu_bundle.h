#pragma once
// NPU kernel bundles, in the layout IRON's exporters write (prior art: IRON's Qwen3.5
// application and the taconite-bundle reader):
//
//   manifest.txt  one record a line, `<tag> <field>...`, `k=v` fields looked up by key;
//                 blank and `#` lines skipped. Records read here:
//                   version <n>                      must equal kBundleVersion
//                   param <name> <value...>          model and layout constants
//                   xclbin <key> <file> <kernel>     a hardware context (one per kernel family)
//                   gemm <key> M=256 K= N= chunks= ctx=<xclbin key> insts=<file>   flm.GEMM
//                   gemv <key> M=1 K= N= ctx= insts=                               GEMVbfp16
//                   weight <tensor> N= K=        a packed projection weight (W is [N][K])
//   tensors.txt   `<name> <dtype> <d0,d1,...> <offset> <bytes>` into tensors.bin
//   tensors.bin   the packed weights (u8, bfp16ebs8 in tile order; offsets 64-byte aligned)
//   kernels/      xclbins and instruction streams (from the IRON toolchain, copied in)
//
// `glance-cli npu-export` writes the manifest's params and weight records, tensors.txt and
// tensors.bin; the xclbin/gemm/gemv records and kernels/ come from IRON. The emulator needs
// no kernel records (it has every shape); the XRT device runs only what they list.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/npu/npu_backend.h"

namespace glance {
class TensorStore;
}

namespace glance::npu {

inline constexpr int kBundleVersion = 1;

struct BundleTensor {
  std::string dtype;           // "u8" for packed weights
  std::vector<int64_t> shape;  // logical [N, K] for packed weights
  uint64_t offset = 0, bytes = 0;
};

class NpuBundle {
 public:
  // Reads manifest.txt and tensors.txt (not the weights). Throws glance::Error naming the file
  // and line on anything malformed, and on a version other than kBundleVersion.
  static NpuBundle Open(const std::string& dir);
  // The version record alone (0 when there is none); throws when manifest.txt is unreadable.
  static int ReadVersion(const std::string& dir);

  const std::string& dir() const { return dir_; }
  const std::map<std::string, std::string>& params() const { return params_; }
  std::string param(const std::string& key, const std::string& fallback = "") const;
  const std::vector<kernels::npu::XrtKernelSpec>& kernels() const { return kernels_; }
  const std::map<std::string, BundleTensor>& tensors() const { return tensors_; }
  int64_t tile_n() const { return tile_n_; }
  uint64_t weight_bytes() const;
  // Reads one packed weight from tensors.bin and checks its size; nullopt when absent.
  std::optional<kernels::npu::PackedWeight> ReadWeight(const std::string& name) const;

 private:
  std::string dir_;
  std::map<std::string, std::string> params_;
  std::vector<kernels::npu::XrtKernelSpec> kernels_;
  std::map<std::string, BundleTensor> tensors_;
  int64_t tile_n_ = kernels::npu::kDefaultTileN;
};

// Finds a projection's packed weight in a bundle by the checkpoint tensor it points into.
class BundleWeightSource final : public kernels::npu::WeightSource {
 public:
  BundleWeightSource(std::shared_ptr<const NpuBundle> bundle, const TensorStore& store);
  std::optional<kernels::npu::PackedWeight> Find(const kernels::WeightRef& w) const override;

 private:
  std::shared_ptr<const NpuBundle> bundle_;
  std::map<const void*, std::string> names_;  // checkpoint data pointer → tensor name
};

// The checkpoint tensors the engine projects with (nn.Linear weights, the Conv3d patch
// embedding viewed flat, the LM head); the bundle packs these.
bool IsProjectionTensor(const std::string& name, const std::vector<int64_t>& shape);

struct ExportSummary {
  int weights = 0;
  uint64_t bytes = 0;
};
// Writes manifest.txt, tensors.txt and tensors.bin for the checkpoint in model_dir into
// out_dir (created; existing bundle files there are replaced). progress(fraction, tensor).
ExportSummary ExportNpuBundle(const std::string& model_dir, const std::string& out_dir,
                              int64_t tile_n = kernels::npu::kDefaultTileN,
                              const std::function<void(double, const std::string&)>& progress = {});

}  // namespace glance::npu
