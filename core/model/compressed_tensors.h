#pragma once
// compressed-tensors `pack-quantized` int4 checkpoints (qwen35.md §6): per quantized Linear X,
//   X.weight_packed int32 [out, ceil(in/8)]  (element k in word k/8 at bits 4·(k%8), q + 8)
//   X.weight_scale  bf16  [out, ceil(in/32)] (one scale per 32 inputs, symmetric, no zero point)
//   X.weight_shape  int64 [2] = [out, in]
// Quantization is detected per tensor by the presence of X.weight_packed (never by name
// lists); config.json quantization_config.ignore names the modules the producer kept
// unquantized, which this engine then also never re-quantizes at load.
#include <optional>
#include <string>
#include <vector>

#include "kernels/cpu/matmul.h"

namespace glance {

class TensorStore;

struct CompressedTensorsConfig {
  bool present = false;             // quant_method == "compressed-tensors"
  std::vector<std::string> ignore;  // module names, or "re:<regex>" patterns
};

// Reads quantization_config from a config.json; absent -> present == false. Throws
// glance::Error naming the file and field when present but not group-32 symmetric int4.
CompressedTensorsConfig ReadCompressedTensorsConfig(const std::string& config_json_path);

// True when `module` (e.g. "model.language_model.layers.0.linear_attn.in_proj_a") matches an
// ignore entry (exact name, or a "re:" regex matched against the whole name).
bool IsIgnored(const std::vector<std::string>& ignore, const std::string& module);

// `module`.weight_packed (+ _scale, _shape) repacked into a Q4 WeightRef of [rows][cols] that
// owns its storage; nullopt when the store has no `module`.weight_packed. Throws glance::Error
// naming the tensor on a wrong dtype or shape.
std::optional<kernels::WeightRef> LoadPackedInt4(const TensorStore& store, const std::string& module,
                                                 int64_t rows, int64_t cols);

}  // namespace glance
