#include "core/lm/gated_attention.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "core/lm/mrope.h"
#include "core/lm/norms.h"
#include "kernels/cpu/activations.h"
#include "kernels/cpu/activations_simd.h"
#include "kernels/cpu/attention.h"
#include "kernels/cpu/thread_pool.h"

namespace glance::lm {

void GatedAttentionForward(const FullAttnWeights& w, const TextConfig& cfg, int layer_index,
                           const float* x, int64_t T, const float* cos, const float* sin,
                           KvCache& cache, int64_t n_past, float* out,
                           const kernels::Compute& cx, AttentionObserver* observer,
                           AttnTrace* trace) {
  kernels::ThreadPool* pool = cx.pool;
  const int64_t nq = cfg.num_attention_heads, nkv = cfg.num_key_value_heads, D = cfg.head_dim;
  const int64_t group = nq / nkv;
  const int rot = cfg.rotary_dim();
  const float eps = static_cast<float>(cfg.rms_norm_eps);
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));  // HF scaling = head_dim^-0.5
  const int64_t n_keys = n_past + T;

  std::vector<float> P(static_cast<size_t>(T * nq * 2 * D));
  std::vector<float> Kp(static_cast<size_t>(T * nkv * D)), Vp(Kp.size());
  cx.ProjectShared(x, T, {{&w.q_proj, nullptr, P.data()},
                          {&w.k_proj, nullptr, Kp.data()},
                          {&w.v_proj, nullptr, Vp.data()}});
  if (trace) {
    trace->q_proj = P;
    trace->k_proj = Kp;
    trace->v_proj = Vp;
  }

  // Q [T][nq][D]: query half of each head, normed then rotated. Gate stays in P. K and V
  // enter the cache in its element type (state.h KvType).
  std::vector<float> Q(static_cast<size_t>(T * nq * D)), k_row(static_cast<size_t>(D));
  for (int64_t t = 0; t < T; ++t) {
    for (int64_t h = 0; h < nq; ++h) {
      float* q = Q.data() + (t * nq + h) * D;
      RmsNormRow(P.data() + (t * nq + h) * 2 * D, D, w.q_norm.data(), eps, q);
      ApplyRope(q, cos + t * rot, sin + t * rot, rot);
    }
    for (int64_t h = 0; h < nkv; ++h) {
      RmsNormRow(Kp.data() + (t * nkv + h) * D, D, w.k_norm.data(), eps, k_row.data());
      ApplyRope(k_row.data(), cos + t * rot, sin + t * rot, rot);
      cache.SetKey(h, n_past + t, k_row.data());
      cache.SetValue(h, n_past + t, Vp.data() + (t * nkv + h) * D);
    }
  }

  // Which rows the observer wants, stored [nq][n_obs][n_keys].
  int64_t obs_begin = T, n_obs = 0;
  std::vector<float> obs;
  if (observer) {
    const bool all = observer->rows() == AttentionObserver::Rows::kAll;
    obs_begin = all ? 0 : T - 1;
    n_obs = T - obs_begin;
    obs.assign(static_cast<size_t>(nq * n_obs * n_keys), 0.0f);
  }

  std::vector<float> O(static_cast<size_t>(T * nq * D));
  const bool f16 = cache.type == KvType::kF16;
  // Output gate (HF: attn_output * sigmoid(gate)), gate = second half of the head.
  auto gate_row = [&](int64_t t, int64_t h) {
    kernels::MulSigmoidInPlace(O.data() + (t * nq + h) * D, P.data() + (t * nq + h) * 2 * D + D, D);
  };

  // Every row: one pass over the cache per tile of rows sharing a key/value head
  // (kernels/cpu/attention.h AttentionRows: key blocks, online softmax), so a GQA group reads
  // each cached row once, not once per query head. A task is a kv head's group at up to
  // kTilePositions positions, or a single query head where that gives the pool too few tasks
  // (decode on many threads). A row's arithmetic does not depend on its tile, so a verify
  // batch's rows equal plain decoding's bit for bit (test_speculative), and an observer
  // changes nothing in the output.
  const int64_t kTilePositions = std::max<int64_t>(1, 8 / group);
  const int64_t tiles = (T + kTilePositions - 1) / kTilePositions;
  const int threads = pool ? pool->threads() : 1;
  const int64_t heads_per_task = nkv * tiles >= threads ? group : 1;
  const int64_t splits = group / heads_per_task;
  auto tasks = [&](size_t begin, size_t end) {
    std::vector<float> q_rows, o_rows;
    std::vector<int64_t> row_keys;
    for (size_t task = begin; task < end; ++task) {
      const int64_t tile = static_cast<int64_t>(task) % tiles;
      const int64_t split = static_cast<int64_t>(task) / tiles % splits;
      const int64_t kvh = static_cast<int64_t>(task) / tiles / splits;
      const int64_t t0 = tile * kTilePositions, t1 = std::min(T, t0 + kTilePositions);
      const int64_t h0 = kvh * group + split * heads_per_task, h1 = h0 + heads_per_task;
      const int64_t rows = (t1 - t0) * heads_per_task;
      q_rows.resize(static_cast<size_t>(rows * D));
      o_rows.resize(q_rows.size());
      row_keys.resize(static_cast<size_t>(rows));
      int64_t r = 0;
      for (int64_t t = t0; t < t1; ++t)
        for (int64_t h = h0; h < h1; ++h, ++r) {
          std::copy_n(Q.data() + (t * nq + h) * D, D, q_rows.data() + r * D);
          row_keys[static_cast<size_t>(r)] = n_past + t + 1;  // causal: keys 0 .. own position
        }
      if (f16)
        kernels::AttentionRowsF16(q_rows.data(), D, row_keys.data(), rows, cache.key_row_f16(kvh, 0),
                                  cache.value_row_f16(kvh, 0), D, D, scale, o_rows.data(), D);
      else
        kernels::AttentionRows(q_rows.data(), D, row_keys.data(), rows, cache.key_row(kvh, 0), cache.value_row(kvh, 0), D,
                               D, scale, o_rows.data(), D);
      r = 0;
      for (int64_t t = t0; t < t1; ++t)
        for (int64_t h = h0; h < h1; ++h, ++r) {
          std::copy_n(o_rows.data() + r * D, D, O.data() + (t * nq + h) * D);
          gate_row(t, h);
        }
    }
  };
  kernels::ParallelFor(pool, static_cast<size_t>(nkv * splits * tiles), tasks);

  // The observer's rows: their whole probability rows, scores then softmax (kernels/cpu/
  // attention.h, f32 or half rows; scalar twins there are the oracle).
  auto observed = [&](size_t begin, size_t end) {
    for (size_t hu = begin; hu < end; ++hu) {
      const int64_t h = static_cast<int64_t>(hu), kvh = h / group;
      for (int64_t t = obs_begin; t < T; ++t) {
        const float* q = Q.data() + (t * nq + h) * D;
        const int64_t n = n_past + t + 1;  // causal: keys 0 .. own position
        float* p = obs.data() + (h * n_obs + (t - obs_begin)) * n_keys;
        if (f16)
          kernels::AttentionScoresF16(q, cache.key_row_f16(kvh, 0), D, n, D, scale, p);
        else
          kernels::AttentionScores(q, cache.key_row(kvh, 0), D, n, D, scale, p);
        kernels::SoftmaxInPlace(p, n);
      }
    }
  };
  if (observer) kernels::ParallelFor(pool, static_cast<size_t>(nq), observed);
  if (trace) trace->o_proj_in = O;

  cx.Project(O.data(), T, w.o_proj, nullptr, out);
  if (trace) trace->out.assign(out, out + T * cfg.hidden_size);

  if (observer) {
    AttentionProbs probs;
    probs.layer = layer_index;
    probs.n_heads = static_cast<int>(nq);
    probs.query_begin = obs_begin;
    probs.n_queries = n_obs;
    probs.first_position = n_past;
    probs.n_keys = n_keys;
    probs.probs = obs.data();
    observer->OnAttention(probs);
  }
}

}  // namespace glance::lm
