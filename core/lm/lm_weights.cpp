#include "core/lm/lm_weights.h"

#include <cmath>
#include <string>

#include "core/model/compressed_tensors.h"
#include "core/model/safetensors.h"
#include "core/model/weight_cache.h"
#include "core/util/error.h"

namespace glance::lm {
namespace {

const std::string kPrefix = "model.language_model.";
constexpr const char* kMtpPrefix = "mtp.";

kernels::WeightRef Matrix(const TensorStore& store, const std::string& name, int64_t rows,
                          int64_t cols) {
  // compressed-tensors int4: detected per tensor by X.weight_packed (qwen35.md §6).
  const std::string suffix = ".weight";
  if (!store.Find(name) && name.size() > suffix.size() &&
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
    if (auto q = LoadPackedInt4(store, name.substr(0, name.size() - suffix.size()), rows, cols))
      return *q;
  }
  const TensorView& t = store.Get(name, {rows, cols});
  kernels::WeightRef w;
  switch (t.dtype) {
    case DType::BF16: w.type = kernels::WeightType::BF16; break;
    case DType::F16: w.type = kernels::WeightType::F16; break;
    case DType::F32: w.type = kernels::WeightType::F32; break;
    default:
      throw Error("tensor " + name + " in " + t.file + " has dtype " + DTypeName(t.dtype) +
                  "; the language model needs BF16, F16 or F32");
  }
  w.data = t.data;
  w.rows = rows;
  w.cols = cols;
  return w;
}

std::vector<float> Vector(const TensorStore& store, const std::string& name,
                          const std::vector<int64_t>& shape) {
  return store.Get(name, shape).ToF32();  // ToF32 throws naming the tensor on other dtypes
}

// Zero-centred RMSNorm weight -> the f32 scale 1 + w (qwen35.md §2.3).
std::vector<float> OnePlus(std::vector<float> w) {
  for (float& v : w) v = 1.0f + v;
  return w;
}

// One decoder layer's weights under `p` ("model.language_model.layers.{i}." or "mtp.layers.0.").
LayerWeights LoadLayer(const TensorStore& store, const TextConfig& cfg, const std::string& p, LayerType type) {
  const int64_t H = cfg.hidden_size, I = cfg.intermediate_size;
  const int64_t D = cfg.head_dim, nq = cfg.num_attention_heads, nkv = cfg.num_key_value_heads;
  const int64_t nv = cfg.linear_num_value_heads, dv = cfg.linear_value_head_dim;
  const int64_t Cd = cfg.conv_dim(), Vd = cfg.linear_value_dim(), K = cfg.linear_conv_kernel_dim;
  LayerWeights L;
  L.type = type;
  L.input_norm = OnePlus(Vector(store, p + "input_layernorm.weight", {H}));
  L.post_norm = OnePlus(Vector(store, p + "post_attention_layernorm.weight", {H}));
  L.mlp.gate_proj = Matrix(store, p + "mlp.gate_proj.weight", I, H);
  L.mlp.up_proj = Matrix(store, p + "mlp.up_proj.weight", I, H);
  L.mlp.down_proj = Matrix(store, p + "mlp.down_proj.weight", H, I);
  if (L.type == LayerType::kLinearAttention) {
    const std::string a = p + "linear_attn.";
    LinearAttnWeights& la = L.linear;
    la.in_proj_qkv = Matrix(store, a + "in_proj_qkv.weight", Cd, H);
    la.in_proj_z = Matrix(store, a + "in_proj_z.weight", Vd, H);
    la.in_proj_b = Matrix(store, a + "in_proj_b.weight", nv, H);
    la.in_proj_a = Matrix(store, a + "in_proj_a.weight", nv, H);
    la.conv = Vector(store, a + "conv1d.weight", {Cd, 1, K});
    if (store.Find(a + "conv1d.bias")) {
      throw Error("tensor " + a + "conv1d.bias is present; Qwen3.5's conv1d has no bias "
                  "(qwen35.md §2.7) — this checkpoint is not a supported Qwen3.5");
    }
    // HF: g = −A_log.float().exp() · softplus(a + dt_bias); A_log widened exactly.
    la.neg_exp_a = Vector(store, a + "A_log", {nv});
    for (float& v : la.neg_exp_a) v = -std::exp(v);
    la.dt_bias = Vector(store, a + "dt_bias", {nv});
    la.norm = Vector(store, a + "norm.weight", {dv});
    la.out_proj = Matrix(store, a + "out_proj.weight", H, Vd);
  } else {
    const std::string a = p + "self_attn.";
    FullAttnWeights& fa = L.full;
    fa.q_proj = Matrix(store, a + "q_proj.weight", 2 * nq * D, H);
    fa.k_proj = Matrix(store, a + "k_proj.weight", nkv * D, H);
    fa.v_proj = Matrix(store, a + "v_proj.weight", nkv * D, H);
    fa.o_proj = Matrix(store, a + "o_proj.weight", H, nq * D);
    fa.q_norm = OnePlus(Vector(store, a + "q_norm.weight", {D}));
    fa.k_norm = OnePlus(Vector(store, a + "k_norm.weight", {D}));
  }
  return L;
}

}  // namespace

void ValidateTextConfig(const TextConfig& cfg) {
  auto fail = [](const std::string& what) {
    throw Error("config.json text_config: " + what);
  };
  if (cfg.hidden_size <= 0 || cfg.vocab_size <= 0 || cfg.intermediate_size <= 0)
    fail("hidden_size, vocab_size and intermediate_size must be positive");
  if (cfg.num_hidden_layers <= 0) fail("num_hidden_layers must be positive");
  if (static_cast<int>(cfg.layer_types.size()) != cfg.num_hidden_layers)
    fail("layer_types has " + std::to_string(cfg.layer_types.size()) + " entries but " +
         "num_hidden_layers is " + std::to_string(cfg.num_hidden_layers));
  if (cfg.num_attention_heads <= 0 || cfg.num_key_value_heads <= 0 || cfg.head_dim <= 0 ||
      cfg.num_attention_heads % cfg.num_key_value_heads != 0)
    fail("num_attention_heads (" + std::to_string(cfg.num_attention_heads) +
         ") must be a positive multiple of num_key_value_heads (" +
         std::to_string(cfg.num_key_value_heads) + ")");
  if (cfg.linear_num_key_heads <= 0 || cfg.linear_num_value_heads <= 0 ||
      cfg.linear_num_value_heads % cfg.linear_num_key_heads != 0)
    fail("linear_num_value_heads (" + std::to_string(cfg.linear_num_value_heads) +
         ") must be a positive multiple of linear_num_key_heads (" +
         std::to_string(cfg.linear_num_key_heads) + ")");
  if (cfg.linear_key_head_dim <= 0 || cfg.linear_value_head_dim <= 0)
    fail("linear_key_head_dim and linear_value_head_dim must be positive");
  if (cfg.linear_conv_kernel_dim < 1) fail("linear_conv_kernel_dim must be >= 1");
  const int rot = cfg.rotary_dim();
  if (rot <= 0 || rot % 2 != 0 || rot > cfg.head_dim)
    fail("head_dim * partial_rotary_factor = " + std::to_string(rot) +
         " must be even and within head_dim");
}

LmWeights LmWeights::Load(const TensorStore& store, const TextConfig& cfg) {
  ValidateTextConfig(cfg);
  const int64_t H = cfg.hidden_size, V = cfg.vocab_size;

  LmWeights w;
  w.embed = Matrix(store, kPrefix + "embed_tokens.weight", V, H);
  w.final_norm = OnePlus(Vector(store, kPrefix + "norm.weight", {H}));
  if (cfg.tie_word_embeddings) {
    w.lm_head = w.embed;
  } else {
    w.lm_head = Matrix(store, "lm_head.weight", V, H);
  }

  w.layers.resize(static_cast<size_t>(cfg.num_hidden_layers));
  for (int i = 0; i < cfg.num_hidden_layers; ++i)
    w.layers[static_cast<size_t>(i)] =
        LoadLayer(store, cfg, kPrefix + "layers." + std::to_string(i) + ".", cfg.layer_types[static_cast<size_t>(i)]);
  // The MTP module (vLLM qwen3_5_mtp.py): norms, fc, one full-attention layer, final norm.
  if (store.Find(std::string(kMtpPrefix) + "fc.weight")) {
    const std::string m = kMtpPrefix;
    MtpWeights mtp;
    mtp.pre_fc_norm_embedding = OnePlus(Vector(store, m + "pre_fc_norm_embedding.weight", {H}));
    mtp.pre_fc_norm_hidden = OnePlus(Vector(store, m + "pre_fc_norm_hidden.weight", {H}));
    mtp.fc = Matrix(store, m + "fc.weight", H, 2 * H);
    mtp.layer = LoadLayer(store, cfg, m + "layers.0.", LayerType::kFullAttention);
    mtp.norm = OnePlus(Vector(store, m + "norm.weight", {H}));
    w.mtp = std::move(mtp);
  }
  return w;
}

LmWeights LmWeights::Load(const TensorStore& store, const TextConfig& cfg,
                          const PrecisionPlan& plan, kernels::ThreadPool* pool) {
  LmWeights w = Load(store, cfg);
  // Each matrix is converted unless its module is in plan.keep_as_stored.
  auto prep = [&](kernels::WeightRef& m, const std::string& module,
                  std::optional<kernels::WeightType> target) {
    if (!IsIgnored(plan.keep_as_stored, module)) m = PrepareWeight(m, target, pool, plan.cache, module);
  };
  const bool tied = w.lm_head.data == w.embed.data;
  prep(w.embed, kPrefix + "embed_tokens", plan.embed);
  if (tied && plan.lm_head == plan.embed && !IsIgnored(plan.keep_as_stored, "lm_head")) {
    w.lm_head = w.embed;  // one copy serves both
  } else {
    prep(w.lm_head, "lm_head", plan.lm_head);
  }
  auto prep_layer = [&](LayerWeights& L, const std::string& p) {
    auto proj = [&](kernels::WeightRef& m, const std::string& name) {
      prep(m, p + name, plan.projections);
    };
    proj(L.mlp.gate_proj, "mlp.gate_proj");
    proj(L.mlp.up_proj, "mlp.up_proj");
    proj(L.mlp.down_proj, "mlp.down_proj");
    if (L.type == LayerType::kLinearAttention) {
      proj(L.linear.in_proj_qkv, "linear_attn.in_proj_qkv");
      proj(L.linear.in_proj_z, "linear_attn.in_proj_z");
      proj(L.linear.in_proj_b, "linear_attn.in_proj_b");
      proj(L.linear.in_proj_a, "linear_attn.in_proj_a");
      proj(L.linear.out_proj, "linear_attn.out_proj");
    } else {
      proj(L.full.q_proj, "self_attn.q_proj");
      proj(L.full.k_proj, "self_attn.k_proj");
      proj(L.full.v_proj, "self_attn.v_proj");
      proj(L.full.o_proj, "self_attn.o_proj");
    }
  };
  for (size_t i = 0; i < w.layers.size(); ++i)
    prep_layer(w.layers[i], kPrefix + "layers." + std::to_string(i) + ".");
  if (w.mtp) {  // the drafter runs at the projections' precision too
    prep(w.mtp->fc, std::string(kMtpPrefix) + "fc", plan.projections);
    prep_layer(w.mtp->layer, std::string(kMtpPrefix) + "layers.0.");
  }
  if (plan.cache) plan.cache->Save();  // best effort: a failed write only costs time next start
  return w;
}

}  // namespace glance::lm
