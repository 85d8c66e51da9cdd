#include "core/lm/hidden_attention.h"

#include <algorithm>
#include <cmath>

#include "kernels/cpu/dot.h"
#include "kernels/cpu/thread_pool.h"
#include "kernels/cpu/vector_ops.h"

namespace glance::lm {

namespace {

// u ← decay·(u − β k̂ (k̂·u)).
void Transition(float* u, const float* k, float beta, float decay, int dk) {
  kernels::Axpy(-beta * kernels::DotF32(k, u, dk), k, u, dk);
  kernels::Scale(decay, u, dk);
}

}  // namespace

void ApplyDeltaTransition(float* u, const float* k, float beta, float g, int dk) {
  // (I − β k̂k̂ᵀ) u, then the decay: delta_rule.h's step decays first, but the scalar e^{g}
  // commutes with the matrix.
  Transition(u, k, beta, std::exp(g), dk);
}

void HiddenAttentionRow(const DeltaRuleInput& in, int64_t t, const uint8_t* tracked, const float* w,
                        int64_t n_folded, float* out, const float* z, float* total) {
  const int dk = in.dk;
  auto is_tracked = [&](int64_t m) { return tracked == nullptr || tracked[m] != 0; };
  int64_t n_fwd = 0, upto_t = 0;  // tracked rows of this forward: all, and those <= t
  for (int64_t m = 0; m < in.n_tokens; ++m)
    if (is_tracked(m)) {
      ++n_fwd;
      if (m <= t) ++upto_t;
    }
  std::fill(out + n_folded + upto_t, out + n_folded + n_fwd, 0.0f);  // rows after the query
  // u_t = q̂_t; a_{t,m} = β_m k̂_m·u_m; u_{m−1} = A_m u_m.
  std::vector<float> u(in.q + t * in.qk_stride, in.q + t * in.qk_stride + dk);
  int64_t idx = upto_t;
  double sum = 0.0;  // Σ a_{t,m} over this forward's rows, tracked or not (only with `total`)
  for (int64_t m = t; m >= 0; --m) {
    const float* k = in.k + m * in.qk_stride;
    const float beta = in.beta[m * in.gb_stride];
    if (is_tracked(m) || total) {
      const float a = beta * kernels::DotF32(k, u.data(), dk);
      if (is_tracked(m)) out[n_folded + --idx] = a;
      sum += a;
    }
    ApplyDeltaTransition(u.data(), k, beta, in.g[m * in.gb_stride], dk);
  }
  // u = A_0 ⋯ A_t q̂ (this forward's rows): the folded w_j already carry A up to row −1.
  for (int64_t j = 0; j < n_folded; ++j) out[j] = kernels::DotF32(w + j * dk, u.data(), dk);
  if (total) *total = static_cast<float>(sum + (z ? kernels::DotF32(z, u.data(), dk) : 0.0f));
}

void FoldHiddenRows(const DeltaRuleInput& in, int64_t n, const uint8_t* tracked, std::vector<float>& w, float* z) {
  const int dk = in.dk;
  for (int64_t m = 0; m < n; ++m) {
    const float* k = in.k + m * in.qk_stride;
    const float beta = in.beta[m * in.gb_stride], decay = std::exp(in.g[m * in.gb_stride]);
    const size_t rows = w.size() / static_cast<size_t>(dk);
    for (size_t j = 0; j < rows; ++j) Transition(w.data() + j * static_cast<size_t>(dk), k, beta, decay, dk);
    if (z) {
      Transition(z, k, beta, decay, dk);
      kernels::Axpy(beta, k, z, dk);
    }
    if (tracked == nullptr || tracked[m]) {
      const size_t at = w.size();
      w.resize(at + static_cast<size_t>(dk));
      for (int i = 0; i < dk; ++i) w[at + static_cast<size_t>(i)] = beta * k[i];
    }
  }
}

namespace {

// Value head h's prepared rows: k̂ in a [rows][nk·dk] (or qkv [rows][Cd]) array, β and g in [rows][nv].
DeltaRuleInput HeadRows(const TextConfig& cfg, const float* q, const float* k, int64_t qk_stride,
                        const float* beta, const float* g, int64_t rows, int64_t h) {
  const int64_t group = cfg.linear_num_value_heads / cfg.linear_num_key_heads;
  const int64_t kh = h / group;
  const int dk = cfg.linear_key_head_dim;
  DeltaRuleInput in;
  in.q = q ? q + kh * dk : nullptr;
  in.k = k + kh * dk;
  in.qk_stride = qk_stride;
  in.beta = beta + h;
  in.g = g + h;
  in.gb_stride = cfg.linear_num_value_heads;
  in.n_tokens = rows;
  in.dk = dk;
  in.dv = cfg.linear_value_head_dim;
  return in;
}

}  // namespace

void BeginHiddenAttentionForward(HiddenAttentionState& s, const TextConfig& cfg, int64_t n_tokens, int64_t T,
                                 std::span<const int64_t> image_rows, kernels::ThreadPool* pool) {
  const int n_layers = cfg.num_hidden_layers;
  const int64_t nv = cfg.linear_num_value_heads;
  const int64_t Kd = int64_t{cfg.linear_num_key_heads} * cfg.linear_key_head_dim;
  if (s.layers.empty()) {
    s.layers.resize(static_cast<size_t>(n_layers));
    for (int li = 0; li < n_layers; ++li)
      if (cfg.layer_types[static_cast<size_t>(li)] == LayerType::kLinearAttention) {
        s.layers[static_cast<size_t>(li)].w.assign(static_cast<size_t>(nv), {});
        s.layers[static_cast<size_t>(li)].z.assign(static_cast<size_t>(nv),
                                                   std::vector<float>(static_cast<size_t>(cfg.linear_key_head_dim), 0.0f));
      }
  }
  // The last forward's rows that the state kept (all, unless a verify was rolled back).
  const int64_t keep = std::clamp<int64_t>(n_tokens - s.pending_first, 0, s.pending_rows);
  if (keep > 0) {
    std::vector<size_t> linear;
    for (size_t li = 0; li < s.layers.size(); ++li)
      if (!s.layers[li].w.empty() && !s.layers[li].k.empty()) linear.push_back(li);
    // Every (layer, head) folds on its own.
    kernels::ParallelFor(pool, linear.size() * static_cast<size_t>(nv), [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        HiddenAttentionState::Layer& L = s.layers[linear[i / static_cast<size_t>(nv)]];
        const int64_t h = static_cast<int64_t>(i % static_cast<size_t>(nv));
        const DeltaRuleInput in = HeadRows(cfg, nullptr, L.k.data(), Kd, L.beta.data(), L.g.data(), keep, h);
        FoldHiddenRows(in, keep, s.pending_tracked.data(), L.w[static_cast<size_t>(h)],
                       L.z[static_cast<size_t>(h)].data());
      }
    });
    for (int64_t m = 0; m < keep; ++m)
      if (s.pending_tracked[static_cast<size_t>(m)]) s.positions.push_back(s.pending_first + m);
  }
  s.pending_first = n_tokens;
  s.pending_rows = T;
  s.pending_tracked.assign(static_cast<size_t>(T), s.every_row ? 1 : 0);
  for (int64_t r : image_rows)
    if (r >= 0 && r < T) s.pending_tracked[static_cast<size_t>(r)] = 1;
  // The sequence's first token, the attention sink of the layer × head shares (issue 36 item 5).
  if (n_tokens == 0 && T > 0) s.pending_tracked[0] = 1;
  for (HiddenAttentionState::Layer& L : s.layers) {
    L.k.clear();
    L.beta.clear();
    L.g.clear();
  }
}

void HiddenAttentionLayerForward(const HiddenAttentionContext& ctx, const TextConfig& cfg, const float* qkv,
                                 const float* beta, const float* g, int64_t T, kernels::ThreadPool* pool) {
  HiddenAttentionState& s = *ctx.state;
  HiddenAttentionState::Layer& L = s.layers[static_cast<size_t>(ctx.layer)];
  const int64_t nv = cfg.linear_num_value_heads;
  const int dk = cfg.linear_key_head_dim;
  const int64_t Kd = int64_t{cfg.linear_num_key_heads} * dk, Cd = cfg.conv_dim();
  L.k.resize(static_cast<size_t>(T * Kd));
  for (int64_t t = 0; t < T; ++t) std::copy_n(qkv + t * Cd + Kd, Kd, L.k.data() + t * Kd);
  L.beta.assign(beta, beta + T * nv);
  L.g.assign(g, g + T * nv);

  AttentionObserver* obs = ctx.observer;
  if (!obs || !obs->wants_hidden_attention()) return;
  const uint8_t* tracked = s.pending_tracked.data();
  std::vector<int64_t> positions = s.positions;
  for (int64_t m = 0; m < T; ++m)
    if (tracked[m]) positions.push_back(s.pending_first + m);
  const int64_t n_folded = static_cast<int64_t>(s.positions.size());
  const int64_t n_keys = static_cast<int64_t>(positions.size());
  if (n_keys == 0) return;
  const int64_t q0 = obs->rows() == AttentionObserver::Rows::kAll ? 0 : T - 1, nq = T - q0;
  std::vector<float> weights(static_cast<size_t>(nv * nq * n_keys));
  std::vector<float> totals(s.totals_known ? static_cast<size_t>(nv * nq) : 0);
  kernels::ParallelFor(pool, static_cast<size_t>(nv), [&](size_t begin, size_t end) {
    for (size_t h = begin; h < end; ++h) {
      const DeltaRuleInput in = HeadRows(cfg, qkv, qkv + Kd, Cd, beta, g, T, static_cast<int64_t>(h));
      for (int64_t r = 0; r < nq; ++r)
        HiddenAttentionRow(in, q0 + r, tracked, L.w[h].data(), n_folded,
                           weights.data() + (static_cast<int64_t>(h) * nq + r) * n_keys, L.z[h].data(),
                           totals.empty() ? nullptr : totals.data() + static_cast<int64_t>(h) * nq + r);
    }
  });
  HiddenAttentionWeights hw;
  hw.layer = ctx.layer;
  hw.n_heads = static_cast<int>(nv);
  hw.query_begin = q0;
  hw.n_queries = nq;
  hw.first_position = s.pending_first;
  hw.n_keys = n_keys;
  hw.positions = positions.data();
  hw.weights = weights.data();
  hw.totals = totals.empty() ? nullptr : totals.data();
  obs->OnHiddenAttention(hw);
}

}  // namespace glance::lm
