#pragma once
// Random-weight Qwen3.5 checkpoints in the real HF format (`glance-cli make-model`): exactly the
// shapes of the released 0.8B/2B/4B models (qwen35.md §1.4/§1.5) or of the tiny-a test model,
// so the engine, the loader and the benchmarks can run at real sizes without downloads.
// The tokenizer is the bundled 4,096-id demo tokenizer (special tokens at 4063..4095), so the
// config's special token ids point at it; the embedding keeps the model's full vocab rows.
//
// Thread contract: free functions; MakeRandomModel uses its own worker threads internally.
#include <cstdint>
#include <functional>
#include <string>

#include "core/model/config.h"

namespace glance {

enum class ModelShape { kTiny, k0_8B, k2B, k4B };

// "tiny" | "0.8b" | "2b" | "4b" (case-insensitive); throws glance::Error listing the choices.
ModelShape ParseModelShape(const std::string& name);
const char* ModelShapeName(ModelShape shape);

// The config make-model writes for `shape`: real text/vision sizes, demo-tokenizer token ids
// (image_pad 4075, video_pad 4076, vision_start 4072, vision_end 4073, eos 4063).
ModelConfig ConfigForShape(ModelShape shape);

// config.json text in HF's format (Qwen3_5ForConditionalGeneration, layer_types,
// rope_parameters, vision_config, token ids). ModelConfig::FromJsonText reads it back equal.
std::string ToHfConfigJson(const ModelConfig& config);

struct MakeModelOptions {
  ModelShape shape = ModelShape::kTiny;
  std::string out_dir;  // created if missing; existing model files in it are overwritten
  uint64_t seed = 0;
  // Folder holding tokenizer.json, tokenizer_config.json, chat_template.jinja,
  // preprocessor_config.json, generation_config.json.
  std::string resources_dir = std::string(GLANCE_SOURCE_RESOURCES) + "/demo-model";
  int threads = 0;  // <= 0: all cores
  // Called after each tensor: (tensor name, fraction of bytes done in [0, 1]).
  std::function<void(const std::string&, double)> progress;
};

struct MakeModelResult {
  std::string weights_path;  // out_dir/model.safetensors
  int64_t tensors = 0;
  int64_t parameters = 0;
  uint64_t bytes = 0;  // size of the weights file
  double seconds = 0;
};

// Writes config.json, model.safetensors (BF16; A_log F32) and the tokenizer/template/
// preprocessor files. Deterministic: the same shape and seed give byte-identical files
// regardless of the thread count. Throws glance::Error naming the file on I/O problems.
MakeModelResult MakeRandomModel(const MakeModelOptions& options);

}  // namespace glance
