#include "core/lm/language_model.h"

#include <string>

#include "core/lm/mlp.h"
#include "core/lm/norms.h"
#include "core/util/error.h"

namespace glance::lm {

LanguageModel::LanguageModel(const TextConfig& cfg, LmWeights weights)
    : cfg_(cfg), weights_(std::move(weights)), rope_(cfg) {}

LanguageModel LanguageModel::Load(const TensorStore& store, const TextConfig& cfg) {
  LmWeights w = LmWeights::Load(store, cfg);  // validates cfg first
  return LanguageModel(cfg, std::move(w));
}

LanguageModel LanguageModel::Load(const TensorStore& store, const TextConfig& cfg,
                                  const PrecisionPlan& plan, kernels::ThreadPool* pool) {
  LmWeights w = LmWeights::Load(store, cfg, plan, pool);
  return LanguageModel(cfg, std::move(w));
}

void LanguageModel::CheckInput(const ForwardInput& in, const LmState& state) const {
  const int64_t T = static_cast<int64_t>(in.ids.size());
  if (T < 1) throw Error("language model forward: no tokens given");
  for (int64_t i = 0; i < T; ++i) {
    const int64_t id = in.ids[static_cast<size_t>(i)];
    if (id < 0 || id >= cfg_.vocab_size)
      throw Error("language model forward: token id " + std::to_string(id) + " at index " +
                  std::to_string(i) + " is outside the vocabulary [0, " +
                  std::to_string(cfg_.vocab_size) + ")");
  }
  for (const EmbeddingOverride& o : in.overrides) {
    if (o.index < 0 || o.index >= T || o.row == nullptr)
      throw Error("language model forward: embedding override for row " +
                  std::to_string(o.index) + " is outside the " + std::to_string(T) +
                  " rows of this forward or has no data");
  }
  const size_t L = static_cast<size_t>(cfg_.num_hidden_layers);
  bool ok = state.linear.size() == L && state.kv.size() == L && state.n_tokens >= 0;
  for (size_t i = 0; ok && i < L; ++i) {
    if (cfg_.layer_types[i] == LayerType::kLinearAttention) {
      ok = state.linear[i].conv_tail.size() ==
               static_cast<size_t>(cfg_.conv_dim() * (cfg_.linear_conv_kernel_dim - 1)) &&
           state.linear[i].recurrent.size() ==
               static_cast<size_t>(int64_t{cfg_.linear_num_value_heads} *
                                   cfg_.linear_key_head_dim * cfg_.linear_value_head_dim);
    } else {
      ok = state.kv[i].n_kv_heads == cfg_.num_key_value_heads &&
           state.kv[i].head_dim == cfg_.head_dim && state.kv[i].capacity >= 0 &&
           (state.n_tokens == 0 || state.kv[i].capacity >= state.n_tokens);
    }
  }
  if (!ok)
    throw Error("language model forward: the state was not made for this model "
                "(use LanguageModel::NewState)");
}

void LanguageModel::Forward(const ForwardInput& in, LmState& state, ForwardOutput& out,
                            kernels::ThreadPool* pool, AttentionObserver* observer) const {
  CheckInput(in, state);
  const kernels::Compute cx{backend_, pool};
  const int64_t T = static_cast<int64_t>(in.ids.size());
  const int64_t H = cfg_.hidden_size, V = cfg_.vocab_size;
  const int64_t n_past = state.n_tokens;
  const float eps = static_cast<float>(cfg_.rms_norm_eps);

  // 1. Embeddings (qwen35.md §2.1): token rows, then dense / per-row overrides.
  std::vector<float> x(static_cast<size_t>(T * H));
  for (int64_t t = 0; t < T; ++t) {
    if (in.embeddings) {
      std::copy_n(in.embeddings + t * H, H, x.data() + t * H);
    } else {
      weights_.embed.row_to_f32(in.ids[static_cast<size_t>(t)], x.data() + t * H);
    }
  }
  for (const EmbeddingOverride& o : in.overrides) std::copy_n(o.row, H, x.data() + o.index * H);

  // 2. Rotary tables for these rows.
  std::vector<int64_t> text_pos;
  const int64_t* pos = in.positions;
  if (!pos) {
    text_pos = TextPositions(n_past, state.rope_delta, T);
    pos = text_pos.data();
  }
  const int rot = rope_.rotary_dim();
  std::vector<float> cos(static_cast<size_t>(T * rot)), sin(cos.size());
  rope_.Compute(pos, T, T, cos.data(), sin.data());

  // 3. Decoder layers (qwen35.md §2.2): x += mixer(norm(x)); x += mlp(norm(x)).
  if (in.trace) in.trace->layer_out_last.assign(static_cast<size_t>(cfg_.num_hidden_layers * H), 0.0f);
  std::vector<float> h(static_cast<size_t>(T * H)), y(h.size());
  for (int li = 0; li < cfg_.num_hidden_layers; ++li) {
    if (in.on_layer && !in.on_layer(li, cfg_.num_hidden_layers)) {
      out.n_rows = 0;
      out.logits.clear();
      return;
    }
    const LayerWeights& L = weights_.layers[static_cast<size_t>(li)];
    for (int64_t t = 0; t < T; ++t)
      RmsNormRow(x.data() + t * H, H, L.input_norm.data(), eps, h.data() + t * H);
    if (L.type == LayerType::kLinearAttention) {
      LinearAttnTrace* tr = in.trace && in.trace->linear_layer == li ? &in.trace->linear : nullptr;
      GatedDeltaNetForward(L.linear, cfg_, h.data(), T, state.linear[static_cast<size_t>(li)],
                           y.data(), in.delta_rule, cx, tr);
    } else {
      AttnTrace* tr = in.trace && in.trace->attn_layer == li ? &in.trace->attn : nullptr;
      KvCache& cache = state.kv[static_cast<size_t>(li)];
      cache.Reserve(n_past + T, n_past);
      GatedAttentionForward(L.full, cfg_, li, h.data(), T, cos.data(), sin.data(), cache, n_past,
                            y.data(), cx, observer, tr);
    }
    for (size_t i = 0; i < x.size(); ++i) x[i] += y[i];
    for (int64_t t = 0; t < T; ++t)
      RmsNormRow(x.data() + t * H, H, L.post_norm.data(), eps, h.data() + t * H);
    MlpForward(L.mlp, h.data(), T, y.data(), cx);
    for (size_t i = 0; i < x.size(); ++i) x[i] += y[i];
    if (in.trace)
      std::copy_n(x.data() + (T - 1) * H, H, in.trace->layer_out_last.data() + li * H);
  }
  state.n_tokens = n_past + T;

  // 4. Final norm and LM head (qwen35.md §2.8) for the rows asked for.
  const int64_t first = in.all_logits ? 0 : T - 1;
  const int64_t rows = T - first;
  for (int64_t t = first; t < T; ++t)
    RmsNormRow(x.data() + t * H, H, weights_.final_norm.data(), eps, h.data() + (t - first) * H);
  if (in.trace) in.trace->final_norm_last.assign(h.data() + (rows - 1) * H, h.data() + rows * H);
  out.n_rows = rows;
  out.vocab = V;
  out.logits.resize(static_cast<size_t>(rows * V));
  cx.Project(h.data(), rows, weights_.lm_head, nullptr, out.logits.data());
}

}  // namespace glance::lm
