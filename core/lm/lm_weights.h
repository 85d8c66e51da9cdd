#pragma once
// The language-model weights of a Qwen3.5 checkpoint (names and shapes: qwen35.md §1.5),
// checked against the TextConfig at load. Big matrices are WeightRefs pointing straight into
// the mmapped safetensors data (BF16/F16/F32); small vectors are widened to f32 once.
//
// Thread contract: immutable after Load; valid only while the TensorStore lives.
#include <optional>
#include <string>
#include <vector>

#include "core/model/config.h"
#include "core/model/prepared_weights.h"
#include "kernels/cpu/matmul.h"

namespace glance {
class TensorStore;
}
namespace glance::kernels {
class ThreadPool;
}

namespace glance::lm {

// Gated DeltaNet mixer, `...layers.{i}.linear_attn.` (Cd = 2·nk·dk + nv·dv, Vd = nv·dv).
struct LinearAttnWeights {
  kernels::WeightRef in_proj_qkv;  // [Cd][H]
  kernels::WeightRef in_proj_z;    // [Vd][H]
  kernels::WeightRef in_proj_b;    // [nv][H]
  kernels::WeightRef in_proj_a;    // [nv][H]
  std::vector<float> conv;         // [Cd][K] depthwise causal conv1d kernel (stored [Cd, 1, K])
  std::vector<float> neg_exp_a;    // [nv] −exp(A_log), A_log taken exactly as stored
  std::vector<float> dt_bias;      // [nv] exactly as stored
  std::vector<float> norm;         // [dv] gated-norm weight, used as w (not 1 + w)
  kernels::WeightRef out_proj;     // [H][Vd]
};

// Gated full attention, `...layers.{i}.self_attn.`.
struct FullAttnWeights {
  kernels::WeightRef q_proj;      // [nq·2·D][H], per head [query D | gate D]
  kernels::WeightRef k_proj;      // [nkv·D][H]
  kernels::WeightRef v_proj;      // [nkv·D][H]
  kernels::WeightRef o_proj;      // [H][nq·D]
  std::vector<float> q_norm;      // [D] 1 + w
  std::vector<float> k_norm;      // [D] 1 + w
};

struct MlpWeights {
  kernels::WeightRef gate_proj;  // [I][H]
  kernels::WeightRef up_proj;    // [I][H]
  kernels::WeightRef down_proj;  // [H][I]
};

struct LayerWeights {
  LayerType type = LayerType::kLinearAttention;
  std::vector<float> input_norm;  // [H] 1 + w
  std::vector<float> post_norm;   // [H] 1 + w
  LinearAttnWeights linear;       // set when type == kLinearAttention
  FullAttnWeights full;           // set when type == kFullAttention
  MlpWeights mlp;
};

// The multi-token-prediction (MTP) module, `mtp.*` (vLLM qwen3_5_mtp.py; docs/qwen35.md §1.5
// lists the tensors HF ignores): fc([norm_e(E[x_{t+1}]) | norm_h(h_t)]) → one full-attention
// decoder layer → norm → the main model's head. Absent from checkpoints without `mtp.fc.weight`.
struct MtpWeights {
  std::vector<float> pre_fc_norm_embedding;  // [H] 1 + w
  std::vector<float> pre_fc_norm_hidden;     // [H] 1 + w
  kernels::WeightRef fc;                     // [H][2H], input [embedding | hidden]
  LayerWeights layer;                        // mtp.layers.0, a full-attention decoder layer
  std::vector<float> norm;                   // [H] 1 + w
};

struct LmWeights {
  kernels::WeightRef embed;         // [V][H] model.language_model.embed_tokens.weight
  std::vector<float> final_norm;    // [H] 1 + w
  kernels::WeightRef lm_head;       // [V][H] lm_head.weight, or embed when tied
  std::vector<LayerWeights> layers;  // [num_hidden_layers]
  std::optional<MtpWeights> mtp;     // when the checkpoint has an MTP layer

  // Throws glance::Error naming the tensor on a missing tensor, a wrong shape or an unusable
  // dtype, and naming the field on an inconsistent config.
  static LmWeights Load(const TensorStore& store, const TextConfig& cfg);
  // The same, then every matrix converted per `plan` (prepared_weights.h; quantized copies
  // are owned by their WeightRefs), in parallel on `pool` when given.
  static LmWeights Load(const TensorStore& store, const TextConfig& cfg,
                        const PrecisionPlan& plan, kernels::ThreadPool* pool);
};

// Checks the config fields the LM forward relies on (head counts divide, layer_types sized…).
void ValidateTextConfig(const TextConfig& cfg);

}  // namespace glance::lm
