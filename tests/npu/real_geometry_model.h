#pragma once
// A random checkpoint with the released models' head geometry, small enough for a test:
// attention head_dim 256 with 16 query / 4 KV heads, DeltaNet 16 key / 32 value heads of 128 (the
// 4B's); hidden 256, MLP 640 (down has 3 K slices), 4 layers (3 DeltaNet, 1 attention),
// vocabulary 4096, a one-block vision tower; the demo model's tokenizer and templates.
// Written to a fresh folder under the temporary directory named by `tag` and the pid.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/model/random_init.h"
#include "core/model/random_model.h"
#include "core/model/safetensors_writer.h"
#include "core/model/tensor_manifest.h"

namespace glance {

inline std::filesystem::path MakeRealGeometryModel(const std::string& tag = "glance_npu_geometry") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / (tag + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  ModelConfig c = ConfigForShape(ModelShape::k4B);  // head_dim 256, DeltaNet 16 / 32 heads of 128
  TextConfig& t = c.text;
  t.vocab_size = 4096;
  t.hidden_size = 256;
  t.intermediate_size = 640;
  t.num_hidden_layers = 4;
  t.num_attention_heads = 16;  // the 4B's: 16 × 256 = 4096 = 32 × 128, so one `o` kernel serves both
  t.num_key_value_heads = 4;   // mixers, as in every released model (a bundle has one record a key)
  t.layer_types.clear();
  for (int i = 0; i < t.num_hidden_layers; ++i)
    t.layer_types.push_back((i + 1) % 4 == 0 ? LayerType::kFullAttention : LayerType::kLinearAttention);
  VisionConfig& v = c.vision;
  v.depth = 1;
  v.hidden_size = 64;
  v.intermediate_size = 128;
  v.num_heads = 2;
  v.out_hidden_size = t.hidden_size;
  std::vector<TensorBytes> tensors;
  for (TensorSpec spec : Qwen35TensorManifest(c)) {
    const InitRule rule = InitRuleFor(spec, t.linear_conv_kernel_dim);
    std::vector<float> values(static_cast<size_t>(spec.numel()));
    GenerateInit(rule, TensorSeed(7, spec.name), 0, values.size(), values.data());
    spec.dtype = DType::F32;
    TensorBytes tb;
    tb.spec = spec;
    tb.bytes.resize(values.size() * 4);
    std::memcpy(tb.bytes.data(), values.data(), tb.bytes.size());
    tensors.push_back(std::move(tb));
  }
  WriteSafetensorsFile((dir / "model.safetensors").string(), tensors);
  std::ofstream(dir / "config.json") << ToHfConfigJson(c);
  const fs::path res = fs::path(GLANCE_SOURCE_RESOURCES) / "demo-model";
  for (const char* f : {"tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "preprocessor_config.json",
                        "generation_config.json"})
    if (fs::exists(res / f)) fs::copy_file(res / f, dir / f);
  return dir;
}

}  // namespace glance
