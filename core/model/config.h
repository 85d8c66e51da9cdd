#pragma once
// config.json of a Qwen3_5ForConditionalGeneration checkpoint -> typed configs.
// Defaults are the HF class defaults (qwen35.md §1.1-1.3); missing `layer_types` is derived
// (layer i is full attention iff (i+1) % full_attention_interval == 0); both `rope_parameters`
// and the older `rope_scaling` + top-level `rope_theta` forms are accepted.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace glance {

enum class LayerType : uint8_t { kLinearAttention, kFullAttention };

struct TextConfig {
  int64_t vocab_size = 248320;
  int64_t hidden_size = 4096;
  int64_t intermediate_size = 12288;
  int num_hidden_layers = 32;
  int num_attention_heads = 16;
  int num_key_value_heads = 4;
  int head_dim = 256;
  double rms_norm_eps = 1e-6;
  bool tie_word_embeddings = false;
  int64_t max_position_embeddings = 32768;
  // Gated DeltaNet
  int linear_conv_kernel_dim = 4;
  int linear_key_head_dim = 128;
  int linear_value_head_dim = 128;
  int linear_num_key_heads = 16;
  int linear_num_value_heads = 32;
  std::vector<LayerType> layer_types;  // [num_hidden_layers]
  // RoPE (text): partial, interleaved M-RoPE
  double rope_theta = 1e7;
  double partial_rotary_factor = 0.25;
  std::array<int, 3> mrope_section = {11, 11, 10};
  bool mrope_interleaved = true;
  std::vector<int64_t> eos_token_ids;  // from text_config.eos_token_id (int or list)

  int rotary_dim() const { return static_cast<int>(head_dim * partial_rotary_factor); }
  int64_t linear_key_dim() const { return int64_t{linear_num_key_heads} * linear_key_head_dim; }
  int64_t linear_value_dim() const { return int64_t{linear_num_value_heads} * linear_value_head_dim; }
  int64_t conv_dim() const { return 2 * linear_key_dim() + linear_value_dim(); }
};

struct VisionConfig {
  int depth = 27;
  int64_t hidden_size = 1152;
  int64_t intermediate_size = 4304;
  int num_heads = 16;
  int in_channels = 3;
  int patch_size = 16;
  int temporal_patch_size = 2;
  int spatial_merge_size = 2;
  int64_t out_hidden_size = 3584;
  int64_t num_position_embeddings = 2304;
  std::string hidden_act = "gelu_pytorch_tanh";
  double rope_theta = 10000.0;
  double layer_norm_eps = 1e-6;

  int head_dim() const { return static_cast<int>(hidden_size / num_heads); }
  int64_t patch_dim() const { return int64_t{in_channels} * temporal_patch_size * patch_size * patch_size; }
};

struct ModelConfig {
  std::string model_type;  // "qwen3_5"
  TextConfig text;
  VisionConfig vision;
  int64_t image_token_id = 248056;
  int64_t video_token_id = 248057;
  int64_t vision_start_token_id = 248053;
  int64_t vision_end_token_id = 248054;

  // Throws glance::Error naming the file and field on anything it cannot accept, including
  // another architecture ("found LlamaForCausalLM").
  static ModelConfig FromJsonText(const std::string& json_text, const std::string& origin);
  static ModelConfig FromFile(const std::string& config_json_path);
};

}  // namespace glance
