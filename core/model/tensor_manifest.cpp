#include "core/model/tensor_manifest.h"

#include <string>

namespace glance {

namespace {

void AddVision(const VisionConfig& v, std::vector<TensorSpec>& out) {
  const std::string p = "model.visual.";
  const int64_t hv = v.hidden_size, iv = v.intermediate_size;
  const int64_t merged = hv * v.spatial_merge_size * v.spatial_merge_size;  // 4·Hv
  auto add = [&](const std::string& name, std::vector<int64_t> shape) {
    out.push_back({p + name, DType::BF16, std::move(shape)});
  };
  // Conv3d patch embedding [Hv, C, T, P, P] with bias.
  add("patch_embed.proj.weight", {hv, v.in_channels, v.temporal_patch_size, v.patch_size, v.patch_size});
  add("patch_embed.proj.bias", {hv});
  add("pos_embed.weight", {v.num_position_embeddings, hv});
  for (int j = 0; j < v.depth; ++j) {
    const std::string b = "blocks." + std::to_string(j) + ".";
    add(b + "norm1.weight", {hv});
    add(b + "norm1.bias", {hv});
    add(b + "norm2.weight", {hv});
    add(b + "norm2.bias", {hv});
    add(b + "attn.qkv.weight", {3 * hv, hv});
    add(b + "attn.qkv.bias", {3 * hv});
    add(b + "attn.proj.weight", {hv, hv});
    add(b + "attn.proj.bias", {hv});
    add(b + "mlp.linear_fc1.weight", {iv, hv});
    add(b + "mlp.linear_fc1.bias", {iv});
    add(b + "mlp.linear_fc2.weight", {hv, iv});
    add(b + "mlp.linear_fc2.bias", {hv});
  }
  // Patch merger: LayerNorm over Hv, then MLP on the 2x2-merged 4·Hv vector.
  add("merger.norm.weight", {hv});
  add("merger.norm.bias", {hv});
  add("merger.linear_fc1.weight", {merged, merged});
  add("merger.linear_fc1.bias", {merged});
  add("merger.linear_fc2.weight", {v.out_hidden_size, merged});
  add("merger.linear_fc2.bias", {v.out_hidden_size});
}

// What every decoder layer has under prefix `l` besides its mixer: the two RMSNorms and the MLP.
void AddNormsAndMlp(const TextConfig& t, const std::string& l, std::vector<TensorSpec>& out) {
  const int64_t h = t.hidden_size, inter = t.intermediate_size;
  auto add = [&](const std::string& name, std::vector<int64_t> shape) {
    out.push_back({l + name, DType::BF16, std::move(shape)});
  };
  add("input_layernorm.weight", {h});
  add("post_attention_layernorm.weight", {h});
  add("mlp.gate_proj.weight", {inter, h});
  add("mlp.up_proj.weight", {inter, h});
  add("mlp.down_proj.weight", {h, inter});
}

// One full-attention decoder layer under prefix `l` (self_attn, norms, MLP).
void AddFullAttentionLayer(const TextConfig& t, const std::string& l, std::vector<TensorSpec>& out) {
  const int64_t h = t.hidden_size, d = t.head_dim;
  const int64_t nq = t.num_attention_heads, nkv = t.num_key_value_heads;
  auto add = [&](const std::string& name, std::vector<int64_t> shape) {
    out.push_back({l + name, DType::BF16, std::move(shape)});
  };
  add("self_attn.q_proj.weight", {2 * nq * d, h});  // query and output gate per head
  add("self_attn.k_proj.weight", {nkv * d, h});
  add("self_attn.v_proj.weight", {nkv * d, h});
  add("self_attn.o_proj.weight", {h, nq * d});
  add("self_attn.q_norm.weight", {d});
  add("self_attn.k_norm.weight", {d});
  AddNormsAndMlp(t, l, out);
}

void AddText(const TextConfig& t, std::vector<TensorSpec>& out) {
  const std::string p = "model.language_model.";
  const int64_t h = t.hidden_size, nv = t.linear_num_value_heads;
  auto add = [&](const std::string& name, std::vector<int64_t> shape, DType dtype = DType::BF16) {
    out.push_back({p + name, dtype, std::move(shape)});
  };
  add("embed_tokens.weight", {t.vocab_size, h});
  for (int i = 0; i < t.num_hidden_layers; ++i) {
    const std::string l = "layers." + std::to_string(i) + ".";
    if (t.layer_types[static_cast<size_t>(i)] == LayerType::kFullAttention) {
      AddFullAttentionLayer(t, p + l, out);
      continue;
    }
    const std::string a = l + "linear_attn.";
    add(a + "in_proj_qkv.weight", {t.conv_dim(), h});
    add(a + "in_proj_z.weight", {t.linear_value_dim(), h});
    add(a + "in_proj_b.weight", {nv, h});
    add(a + "in_proj_a.weight", {nv, h});
    add(a + "conv1d.weight", {t.conv_dim(), 1, t.linear_conv_kernel_dim});
    // Released checkpoints keep A_log in F32 (qwen35.md §1.5 "Stored dtypes").
    add(a + "A_log", {nv}, DType::F32);
    add(a + "dt_bias", {nv});
    add(a + "norm.weight", {t.linear_value_head_dim});
    add(a + "out_proj.weight", {h, t.linear_value_dim()});
    AddNormsAndMlp(t, p + l, out);
  }
  add("norm.weight", {h});
}

}  // namespace

std::vector<TensorSpec> Qwen35TensorManifest(const ModelConfig& config) {
  std::vector<TensorSpec> out;
  AddVision(config.vision, out);
  AddText(config.text, out);
  if (!config.text.tie_word_embeddings)
    out.push_back({"lm_head.weight", DType::BF16, {config.text.vocab_size, config.text.hidden_size}});
  return out;
}

std::vector<TensorSpec> Qwen35MtpTensorManifest(const ModelConfig& config) {
  const TextConfig& t = config.text;
  const int64_t h = t.hidden_size;
  std::vector<TensorSpec> out = {{"mtp.fc.weight", DType::BF16, {h, 2 * h}},
                                 {"mtp.pre_fc_norm_embedding.weight", DType::BF16, {h}},
                                 {"mtp.pre_fc_norm_hidden.weight", DType::BF16, {h}}};
  AddFullAttentionLayer(t, "mtp.layers.0.", out);
  out.push_back({"mtp.norm.weight", DType::BF16, {h}});
  return out;
}

}  // namespace glance
