#include "core/lm/gated_deltanet.h"

#include <algorithm>
#include <cmath>

#include "core/lm/delta_rule.h"
#include "core/lm/norms.h"
#include "kernels/cpu/activations.h"
#include "kernels/cpu/activations_simd.h"
#include "kernels/cpu/thread_pool.h"

namespace glance::lm {
namespace {

// Causal depthwise conv (kernel K, no bias) over [tail (K-1 rows) | qkv (T rows)], then SiLU
// (HF: silu(conv1d(x, padding=K-1)[:T]) for a fresh sequence, causal_conv1d_update for a cached
// one — the same sum). Replaces qkv by the activation; tail becomes the last K-1 inputs.
void CausalConvSilu(const std::vector<float>& kernel, int64_t Cd, int K, float* qkv, int64_t T,
                    std::vector<float>& tail) {
  const int64_t hist = K - 1;
  // ext[r][c], r in [0, hist + T): the pre-conv inputs in time order.
  std::vector<float> ext(static_cast<size_t>((hist + T) * Cd));
  for (int64_t c = 0; c < Cd; ++c)
    for (int64_t r = 0; r < hist; ++r) ext[static_cast<size_t>(r * Cd + c)] = tail[static_cast<size_t>(c * hist + r)];
  std::copy_n(qkv, T * Cd, ext.data() + hist * Cd);
  // The kernel as [K][Cd], so that the loop over channels is contiguous in both operands (it
  // vectorises); each output still sums its K taps in order j = 0 .. K−1.
  std::vector<float> taps(static_cast<size_t>(K * Cd));
  for (int64_t c = 0; c < Cd; ++c)
    for (int j = 0; j < K; ++j) taps[static_cast<size_t>(j * Cd + c)] = kernel[static_cast<size_t>(c * K + j)];
  for (int64_t t = 0; t < T; ++t) {
    float* out = qkv + t * Cd;
    std::fill_n(out, Cd, 0.0f);
    for (int j = 0; j < K; ++j) {
      const float* wj = taps.data() + j * Cd;
      const float* in = ext.data() + (t + j) * Cd;
      for (int64_t c = 0; c < Cd; ++c) out[c] += wj[c] * in[c];
    }
  }
  kernels::SiluInPlace(qkv, T * Cd);
  for (int64_t c = 0; c < Cd; ++c)
    for (int64_t r = 0; r < hist; ++r)
      tail[static_cast<size_t>(c * hist + r)] = ext[static_cast<size_t>((T + r) * Cd + c)];
}

}  // namespace

void GatedDeltaNetForward(const LinearAttnWeights& w, const TextConfig& cfg, const float* x,
                          int64_t T, LinearLayerState& state, float* out, DeltaRuleMode mode,
                          const kernels::Compute& cx, LinearAttnTrace* trace,
                          LinearLayerState* after_rows, const HiddenAttentionContext* hidden) {
  kernels::ThreadPool* pool = cx.pool;
  const int64_t nk = cfg.linear_num_key_heads, nv = cfg.linear_num_value_heads;
  const int dk = cfg.linear_key_head_dim, dv = cfg.linear_value_head_dim;
  const int64_t Kd = nk * dk, Vd = nv * dv, Cd = cfg.conv_dim();
  const int64_t group = nv / nk;  // value heads per key head (grouped, qwen35.md §8.7)
  const float eps = static_cast<float>(cfg.rms_norm_eps);

  std::vector<float> qkv(static_cast<size_t>(T * Cd)), z(static_cast<size_t>(T * Vd));
  std::vector<float> b(static_cast<size_t>(T * nv)), a(b.size());
  // Four projections of the same x: one thread split for all of them in decode.
  cx.ProjectShared(x, T, {{&w.in_proj_qkv, nullptr, qkv.data()},
                          {&w.in_proj_z, nullptr, z.data()},
                          {&w.in_proj_b, nullptr, b.data()},
                          {&w.in_proj_a, nullptr, a.data()}});
  if (trace) {
    trace->in_proj_qkv = qkv;
    trace->in_proj_z = z;
    trace->in_proj_b = b;
    trace->in_proj_a = a;
  }

  if (after_rows) {  // row by row, keeping each row's conv tail (same sums as decode)
    for (int64_t t = 0; t < T; ++t) {
      CausalConvSilu(w.conv, Cd, cfg.linear_conv_kernel_dim, qkv.data() + t * Cd, 1, state.conv_tail);
      if (t + 1 < T) after_rows[t].conv_tail = state.conv_tail;
    }
  } else {
    CausalConvSilu(w.conv, Cd, cfg.linear_conv_kernel_dim, qkv.data(), T, state.conv_tail);
  }
  if (trace) trace->conv_out = qkv;

  // q̂ = l2norm(q)·dk^-1/2, k̂ = l2norm(k) (HF use_qk_l2norm_in_kernel, then query * scale).
  const float q_scale = 1.0f / std::sqrt(static_cast<float>(dk));
  for (int64_t t = 0; t < T; ++t) {
    float* row = qkv.data() + t * Cd;
    for (int64_t h = 0; h < nk; ++h) {
      float* q = row + h * dk;
      L2NormRow(q, dk, 1e-6f);
      for (int i = 0; i < dk; ++i) q[i] *= q_scale;
      L2NormRow(row + Kd + h * dk, dk, 1e-6f);
    }
  }
  // β = sigmoid(b); g = −exp(A_log)·softplus(a + dt_bias); stored in b and a.
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < nv; ++h) {
      const size_t i = static_cast<size_t>(t * nv + h);
      b[i] = kernels::Sigmoid(b[i]);
      a[i] = w.neg_exp_a[static_cast<size_t>(h)] *
             kernels::Softplus(a[i] + w.dt_bias[static_cast<size_t>(h)]);
    }

  if (hidden) HiddenAttentionLayerForward(*hidden, cfg, qkv.data(), b.data(), a.data(), T, pool);

  const bool chunked =
      !after_rows && (mode == DeltaRuleMode::kChunked || (mode == DeltaRuleMode::kAuto && T > 1));
  std::vector<float> core(static_cast<size_t>(T * Vd));
  const size_t head_state = static_cast<size_t>(dk * dv);
  if (after_rows)
    for (int64_t t = 0; t + 1 < T; ++t) after_rows[t].recurrent.resize(state.recurrent.size());
  kernels::ParallelFor(pool, static_cast<size_t>(nv), [&](size_t begin, size_t end) {
    for (size_t h = begin; h < end; ++h) {
      const int64_t kh = static_cast<int64_t>(h) / group;
      DeltaRuleInput in;
      in.q = qkv.data() + kh * dk;
      in.k = qkv.data() + Kd + kh * dk;
      in.qk_stride = Cd;
      in.v = qkv.data() + 2 * Kd + static_cast<int64_t>(h) * dv;
      in.v_stride = Cd;
      in.g = a.data() + h;
      in.beta = b.data() + h;
      in.gb_stride = nv;
      in.n_tokens = T;
      in.dk = dk;
      in.dv = dv;
      float* S = state.recurrent.data() + h * head_state;
      float* o = core.data() + h * static_cast<size_t>(dv);
      if (chunked) {
        DeltaRuleChunked(in, S, o, Vd);
      } else if (after_rows) {  // one token per call, as decode runs it; keep S after each
        DeltaRuleInput one = in;
        one.n_tokens = 1;
        for (int64_t t = 0; t < T; ++t) {
          DeltaRuleRecurrent(one, S, o + t * Vd, Vd);
          if (t + 1 < T) std::copy_n(S, head_state, after_rows[t].recurrent.data() + h * head_state);
          one.q += Cd;
          one.k += Cd;
          one.v += Cd;
          one.g += nv;
          one.beta += nv;
        }
      } else {
        DeltaRuleRecurrent(in, S, o, Vd);
      }
    }
  });
  if (trace) trace->core_attn_out = core;

  // Gated RMSNorm per (token, value head) with z of the same head; in place.
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < nv; ++h) {
      float* o = core.data() + t * Vd + h * dv;
      GatedRmsNormRow(o, z.data() + t * Vd + h * dv, dv, w.norm.data(), eps, o);
    }
  if (trace) trace->gated_norm_out = core;

  cx.Project(core.data(), T, w.out_proj, nullptr, out);
  if (trace) trace->out_proj.assign(out, out + T * cfg.hidden_size);
}

}  // namespace glance::lm
