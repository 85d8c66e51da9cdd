#include "core/lm/language_model.h"

#include <algorithm>
#include <limits>
#include <string>

#include "core/lm/decoder_layer.h"
#include "core/lm/mtp.h"
#include "core/lm/norms.h"
#include "core/util/error.h"

namespace glance::lm {

// Whether the model runs quantized projections (Q8/Q4/Q6, prepared at load or stored so, as a
// compressed-tensors int4 checkpoint): such a model keeps its attention caches in half
// precision (state.h KvType); a float model keeps f32, so the golden path is unchanged.
static bool HasQuantizedProjections(const LmWeights& w) {
  auto quantized = [](const kernels::WeightRef& r) { return r.quantized(); };
  for (const LayerWeights& L : w.layers)
    if (quantized(L.mlp.gate_proj) || quantized(L.mlp.up_proj) || quantized(L.mlp.down_proj)) return true;
  return false;
}

LanguageModel::LanguageModel(const TextConfig& cfg, LmWeights weights)
    : cfg_(cfg), weights_(std::move(weights)), rope_(cfg),
      kv_type_(HasQuantizedProjections(weights_) ? KvType::kF16 : KvType::kF32) {}

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

  // Hidden attention (capture on only): fold the last forward's kept rows, track this one's
  // image rows (the overridden ones).
  if (state.hidden.active) {
    std::vector<int64_t> image_rows;
    for (const EmbeddingOverride& o : in.overrides) image_rows.push_back(o.index);
    BeginHiddenAttentionForward(state.hidden, cfg_, n_past, T, image_rows, pool);
  }

  // 3. Decoder layers (qwen35.md §2.2): x += mixer(norm(x)); x += mlp(norm(x)).
  const int n_layers = cfg_.num_hidden_layers;
  if (in.trace) in.trace->layer_out_last.assign(static_cast<size_t>(n_layers * H), 0.0f);
  if (in.row_states) {
    // Resized, not reassigned: the verify of every speculative step reuses the last one's buffers.
    in.row_states->layers.resize(static_cast<size_t>(n_layers));
    for (std::vector<LinearLayerState>& rows : in.row_states->layers)
      rows.resize(static_cast<size_t>(std::max<int64_t>(T - 1, 0)));
  }
  std::vector<float> h(static_cast<size_t>(T * H)), y(h.size());
  HiddenAttentionContext hidden_ctx;
  for (int li = 0; li < n_layers; ++li) {
    if (in.on_layer && !in.on_layer(li, n_layers)) {
      out.n_rows = 0;
      out.logits.clear();
      return;
    }
    const LayerWeights& L = weights_.layers[static_cast<size_t>(li)];
    LayerContext ctx;
    ctx.layer_index = li;
    ctx.delta_rule = in.delta_rule;
    ctx.n_past = n_past;
    ctx.cos = cos.data();
    ctx.sin = sin.data();
    ctx.observer = observer;
    const bool linear = L.type == LayerType::kLinearAttention;
    if (linear) {
      ctx.linear = &state.linear[static_cast<size_t>(li)];
      ctx.linear_trace = in.trace && in.trace->linear_layer == li ? &in.trace->linear : nullptr;
      if (in.row_states && T > 1) ctx.linear_after_rows = in.row_states->layers[static_cast<size_t>(li)].data();
      hidden_ctx = {&state.hidden, li, observer};
      if (state.hidden.active) ctx.hidden = &hidden_ctx;
    } else {
      ctx.kv = &state.kv[static_cast<size_t>(li)];
      ctx.attn_trace = in.trace && in.trace->attn_layer == li ? &in.trace->attn : nullptr;
    }
    DecoderLayerForward(L, cfg_, x.data(), T, ctx, h.data(), y.data(), cx);
    if (in.trace)
      std::copy_n(x.data() + (T - 1) * H, H, in.trace->layer_out_last.data() + li * H);
  }
  state.n_tokens = n_past + T;

  // 4. Final norm and LM head (qwen35.md §2.8) for the rows asked for; every row's normed
  // hidden when the MTP drafter or a rollback needs them.
  const bool keep_hidden = state.mtp.active || in.row_states;
  const int64_t first = in.all_logits || keep_hidden ? 0 : T - 1;
  const int64_t normed = T - first;
  for (int64_t t = first; t < T; ++t)
    RmsNormRow(x.data() + t * H, H, weights_.final_norm.data(), eps, h.data() + (t - first) * H);
  const int64_t rows = in.all_logits ? T : 1;
  const float* head_in = h.data() + (normed - rows) * H;
  if (in.trace) in.trace->final_norm_last.assign(h.data() + (normed - 1) * H, h.data() + normed * H);
  out.n_rows = rows;
  out.vocab = V;
  out.logits.resize(static_cast<size_t>(rows * V));
  cx.Project(head_in, rows, weights_.lm_head, nullptr, out.logits.data());
  out.hidden.clear();
  if (keep_hidden) {
    if (state.mtp.active) AbsorbMtp(in, h.data(), cos.data(), sin.data(), state, cx);
    out.hidden.assign(h.begin(), h.end());
  }
}

void LanguageModel::EnableHiddenAttention(LmState& state, bool every_row) const {
  HiddenAttentionState& s = state.hidden;
  if (s.active) return;
  s = HiddenAttentionState{};
  s.active = true;
  s.every_row = every_row;
  s.totals_known = state.n_tokens == 0;
  s.pending_first = state.n_tokens;  // nothing pending: tracking starts with the next forward
}

void LanguageModel::EnableMtp(LmState& state) const {
  if (!has_mtp()) throw Error("this checkpoint has no MTP layer (no mtp.* tensors)");
  MtpState& m = state.mtp;
  if (m.active) return;
  m.active = true;
  m.kv = KvCache{};
  m.kv.n_kv_heads = cfg_.num_key_value_heads;
  m.kv.head_dim = cfg_.head_dim;
  m.n_rows = 0;
  m.last_hidden.clear();
}

void LanguageModel::AbsorbMtp(const ForwardInput& in, const float* hidden, const float* cos,
                              const float* sin, LmState& state, const kernels::Compute& cx) const {
  // Row t (token p = n_past + t) pairs hidden p-1 with token p: hidden p-1 is the previous
  // forward's last row for t = 0 (none at the very start: that row is skipped).
  const int64_t T = static_cast<int64_t>(in.ids.size()), H = cfg_.hidden_size;
  const int rot = rope_.rotary_dim();
  MtpState& m = state.mtp;
  const int64_t skip = m.last_hidden.empty() ? 1 : 0;
  if (T > skip) {
    std::vector<float> prev(static_cast<size_t>((T - skip) * H));
    if (!skip) std::copy_n(m.last_hidden.data(), H, prev.data());
    std::copy_n(hidden, (T - 1) * H, prev.data() + (1 - skip) * H);
    std::vector<float> mtp_out(prev.size());
    MtpForward(*weights_.mtp, cfg_, weights_.embed, prev.data(), in.ids.subspan(static_cast<size_t>(skip)),
               cos + skip * rot, sin + skip * rot, m, mtp_out.data(), cx);
  }
  m.last_hidden.assign(hidden + (T - 1) * H, hidden + T * H);
}

std::vector<int64_t> LanguageModel::Draft(LmState& state, int64_t next, int k,
                                          const std::function<int64_t(std::span<float>)>& pick,
                                          std::vector<float>* draft_logits, kernels::ThreadPool* pool,
                                          int64_t draft_vocab) const {
  std::vector<int64_t> drafts;
  MtpState& m = state.mtp;
  if (!m.active || m.last_hidden.empty() || k <= 0) return drafts;
  const kernels::Compute cx{backend_, pool};
  const int64_t H = cfg_.hidden_size, V = cfg_.vocab_size;
  const int rot = rope_.rotary_dim();
  const int64_t rows_before = m.n_rows;
  std::vector<float> hidden = m.last_hidden, out(static_cast<size_t>(H)), logits(static_cast<size_t>(V));
  std::vector<float> cos(static_cast<size_t>(rot)), sin(cos.size());
  // An NPU backend keeps its own copy of the whole head (keyed by the storage): it scores all.
  const bool cpu = !backend_ || dynamic_cast<const kernels::CpuBackend*>(backend_) != nullptr;
  const kernels::WeightRef head = cpu ? DraftHeadRows(weights_.lm_head, draft_vocab) : weights_.lm_head;
  if (draft_logits) draft_logits->clear();
  int64_t token = next;
  for (int i = 0; i < k; ++i) {
    // Row at position n_tokens + i: the text position of a generated token.
    const std::vector<int64_t> pos = TextPositions(state.n_tokens + i, state.rope_delta, 1);
    rope_.Compute(pos.data(), 1, 1, cos.data(), sin.data());
    MtpForward(*weights_.mtp, cfg_, weights_.embed, hidden.data(), std::span<const int64_t>(&token, 1), cos.data(),
               sin.data(), m, out.data(), cx);
    cx.Project(out.data(), 1, head, nullptr, logits.data());
    std::fill(logits.begin() + head.rows, logits.end(), -std::numeric_limits<float>::infinity());
    if (draft_logits) draft_logits->insert(draft_logits->end(), logits.begin(), logits.end());
    token = pick(logits);
    drafts.push_back(token);
    hidden.swap(out);
  }
  m.n_rows = rows_before;  // the verify forward absorbs the rows that are kept
  return drafts;
}

}  // namespace glance::lm
