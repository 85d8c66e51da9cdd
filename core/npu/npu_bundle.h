#pragma once
// NPU kernel bundles, as IRON's exporters write them and the taconite crate's bundle reader
// (taconite-bundle/src/lib.rs) and Qwen3.5 runtime (taconite-qwen35/src/{npu,model}.rs) read
// them; `glance-cli npu-export` writes the same format.
//
//   manifest.txt  one record a line, `<tag> <field>...`; `k=v` fields looked up by key;
//                 blank and `#` lines skipped. Records read here:
//     version 1
//     param <name> <value...>           D, I, layer_types (lin,att,...), chunk, n_down,
//                                       head_rows, n_head, gemv_format (bfp16), ... ; Glance
//                                       also reads `rounding` (conv_even | floor)
//     xclbin <key> <file> <kernel>      a hardware context kernels name by key
//     gemm <key> M= K= N= lda= c_stride= b_bytes= a_elems= c_elems= [ctx=gemm] insts=
//                                       an flm.GEMM over one chunk of M rows
//     gemm_chunks <key> <n> a_elems= c_elems= insts=
//                                       the same GEMM's stream over n chunks (n = 2, 3, ...)
//     gemv <key> M=<out rows> K= w_words= [ctx=gemv] insts=    a GEMVbfp16
//     any record may carry rounding=conv_even|floor (Glance's; default: the param, else
//     conv_even, IRON's flm.GEMM default). Other records belong to other runtimes: ignored.
//   tensors.txt   `<name> <dtype> <d0,d1,...> <offset> <bytes>` into tensors.bin (dtype f32,
//                 bf16, u8 or i32; offset a multiple of 8)
//   tensors.bin   packed weights (u8) and host tensors
//   kernels/      xclbins and instruction streams (from the IRON toolchain)
//
// Which packed tensors exist and how they map onto the checkpoint's projections is
// bundle_plan.h. Every number read from a file is bounded before anything is sized from it:
// a malformed bundle is a glance::Error naming the file (and line) — never a crash or an
// allocation out of proportion to the files.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/npu/bundle_plan.h"
#include "kernels/npu/npu_backend.h"

namespace glance {
class TensorStore;
}

namespace glance::npu {

inline constexpr int kBundleVersion = 1;

struct BundleTensor {
  std::string dtype;           // f32, bf16, u8, i32
  std::vector<int64_t> shape;  // as written (packed weights: flat bytes)
  uint64_t offset = 0, bytes = 0;
};

// One kernel record (gemm / gemm_chunks / gemv), with its context resolved.
struct BundleKernel {
  kernels::npu::XrtKernelSpec spec;
  std::string key;              // the record's key ("lin", "gu", "head", ...)
  int64_t m = 0;                // GEMM: rows of a chunk; GEMV: output rows
  int64_t lda = 0, c_stride = 0, b_bytes = 0, a_elems = 0, c_elems = 0, w_words = 0;
};

class NpuBundle {
 public:
  // Reads manifest.txt and tensors.txt (not the weights). Throws glance::Error naming the file
  // and line on anything malformed or out of bounds, and on a version other than 1.
  static NpuBundle Open(const std::string& dir);

  const std::string& dir() const { return dir_; }
  const std::map<std::string, std::string>& params() const { return params_; }
  std::string param(const std::string& key, const std::string& fallback = "") const;
  const std::vector<BundleKernel>& kernels() const { return kernels_; }
  std::vector<kernels::npu::XrtKernelSpec> kernel_specs() const;
  const std::map<std::string, BundleTensor>& tensors() const { return tensors_; }
  kernels::npu::Rounding rounding() const { return rounding_; }
  uint64_t weight_bytes() const;
  // Kernel files (xclbins, instruction streams) the records name that are not there.
  std::vector<std::string> MissingKernelFiles() const;
  // The raw bytes of a u8 tensor; throws when absent or not `want_bytes` long.
  std::vector<uint8_t> ReadBytes(const std::string& name, uint64_t want_bytes) const;

 private:
  std::string dir_;
  std::map<std::string, std::string> params_;
  std::vector<BundleKernel> kernels_;
  std::map<std::string, BundleTensor> tensors_;
  kernels::npu::Rounding rounding_ = kernels::npu::Rounding::kConvEven;
};

// Parses "conv_even" / "floor"; throws naming `where` otherwise.
kernels::npu::Rounding ParseRounding(const std::string& s, const std::string& where);

// The engine's projection weights out of a bundle: each checkpoint projection is cut out of
// the bundle tensor(s) bundle_plan.h puts it in, block for block (the 9-byte blocks are copied,
// never re-encoded), so it computes exactly what the bundle's kernels would.
class BundleWeightSource final : public kernels::npu::WeightSource {
 public:
  BundleWeightSource(std::shared_ptr<const NpuBundle> bundle, const TensorStore& store);
  std::optional<kernels::npu::PackedWeight> Find(const kernels::WeightRef& w) const override;
  // The same by checkpoint tensor name (nullopt when the bundle does not hold it).
  std::optional<kernels::npu::PackedWeight> FindByName(const std::string& checkpoint) const;
  // A fused bundle tensor exactly as tensors.bin holds it (the bytes the kernels read).
  std::optional<kernels::npu::PackedWeight> FindTensor(const std::string& bundle_tensor) const override;
  const BundlePlan& plan() const { return plan_; }

 private:
  // Bundle tensor `t` read from tensors.bin with its geometry (N_pad from the byte count).
  kernels::npu::PackedWeight LoadTensor(const BundleTensorPlan& t) const;

  std::shared_ptr<const NpuBundle> bundle_;
  BundlePlan plan_;
  std::map<const void*, std::string> names_;  // checkpoint data pointer → tensor name
};

// `--backend npu-emu` without a bundle: the fused tensors bundle_plan.h lists, assembled from
// the checkpoint and packed at load exactly as npu-export packs them; other weights packed as
// asked (PackingWeightSource).
class CheckpointTensorSource final : public kernels::npu::WeightSource {
 public:
  CheckpointTensorSource(const TensorStore& store, kernels::npu::Rounding rounding);
  std::optional<kernels::npu::PackedWeight> Find(const kernels::WeightRef& w) const override;
  std::optional<kernels::npu::PackedWeight> FindTensor(const std::string& bundle_tensor) const override;
  const BundlePlan& plan() const { return plan_; }

 private:
  const TensorStore& store_;
  BundlePlan plan_;
  kernels::npu::Rounding rounding_;
};

}  // namespace glance::npu
