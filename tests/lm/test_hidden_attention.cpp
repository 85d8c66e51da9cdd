// The Gated DeltaNet layers' hidden attention (core/lm/hidden_attention.h, qwen35.md §2.9):
//  (a) a_{t,j} equals a brute-force β_j k̂_jᵀ (A_{j+1} ⋯ A_t) q̂_t built from explicit dk×dk
//      transition matrices, whole or split across forwards (the folded path);
//  (b) Σ_j a_{t,j} v_j reproduces the delta rule's own output o_t — on random inputs, and in
//      tiny-a's layers through prefill (chunked), decode (recurrent) and a rolled-back verify;
//  (c) negative controls: one dropped decay (α = e^{g} taken as 1) or one dropped row is caught.
// Capture off stores nothing and reports nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <vector>

#include "core/lm/delta_rule.h"
#include "core/lm/hidden_attention.h"
#include "core/lm/norms.h"
#include "lm_fixture.h"

namespace glance::lm {
namespace {

double D(float x) { return static_cast<double>(x); }

// f32 rounding over ~20 steps of unit-norm vectors: the sums below are O(1).
constexpr float kTol = 2e-5f;

struct Case {
  int64_t T;
  int dk, dv;
  std::vector<float> q, k, v, g, beta;
};

Case MakeCase(int64_t T, int dk, int dv, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> n01(0.0f, 1.0f);
  std::uniform_real_distribution<float> u01(0.0f, 1.0f);
  Case c{T, dk, dv, {}, {}, {}, {}, {}};
  c.q.resize(static_cast<size_t>(T * dk));
  c.k.resize(c.q.size());
  c.v.resize(static_cast<size_t>(T * dv));
  for (auto& x : c.q) x = n01(rng);
  for (auto& x : c.k) x = n01(rng);
  for (auto& x : c.v) x = n01(rng);
  for (int64_t t = 0; t < T; ++t) {  // prepared as the layer prepares them
    L2NormRow(c.q.data() + t * dk, dk, 1e-6f);
    for (int i = 0; i < dk; ++i) c.q[static_cast<size_t>(t * dk + i)] /= std::sqrt(static_cast<float>(dk));
    L2NormRow(c.k.data() + t * dk, dk, 1e-6f);
    c.g.push_back(-0.5f * u01(rng));
    c.beta.push_back(0.2f + 0.8f * u01(rng));
  }
  return c;
}

DeltaRuleInput Input(const Case& c, int64_t from = 0) {
  DeltaRuleInput in;
  in.q = c.q.data() + from * c.dk;
  in.k = c.k.data() + from * c.dk;
  in.qk_stride = c.dk;
  in.v = c.v.data() + from * c.dv;
  in.v_stride = c.dv;
  in.g = c.g.data() + from;
  in.beta = c.beta.data() + from;
  in.n_tokens = c.T - from;
  in.dk = c.dk;
  in.dv = c.dv;
  return in;
}

// The brute force: A_m = e^{g_m}(I − β_m k̂_m k̂_mᵀ) as explicit matrices, their product
// P = A_{j+1} ⋯ A_t multiplied out left to right, then a_{t,j} = β_j k̂_jᵀ P q̂_t. In double.
double BruteForce(const Case& c, int64_t t, int64_t j) {
  const int n = c.dk;
  std::vector<double> P(static_cast<size_t>(n * n), 0.0);
  for (int i = 0; i < n; ++i) P[static_cast<size_t>(i * n + i)] = 1.0;
  for (int64_t m = j + 1; m <= t; ++m) {
    std::vector<double> A(static_cast<size_t>(n * n));
    const float* k = c.k.data() + m * n;
    const double decay = std::exp(static_cast<double>(c.g[static_cast<size_t>(m)]));
    for (int r = 0; r < n; ++r)
      for (int s = 0; s < n; ++s)
        A[static_cast<size_t>(r * n + s)] =
            decay * ((r == s ? 1.0 : 0.0) - D(c.beta[static_cast<size_t>(m)]) * D(k[r]) * D(k[s]));
    std::vector<double> PA(P.size(), 0.0);  // P ← P · A_m
    for (int r = 0; r < n; ++r)
      for (int s = 0; s < n; ++s)
        for (int x = 0; x < n; ++x) PA[static_cast<size_t>(r * n + s)] += P[static_cast<size_t>(r * n + x)] * A[static_cast<size_t>(x * n + s)];
    P = std::move(PA);
  }
  double a = 0.0;
  for (int r = 0; r < n; ++r)
    for (int s = 0; s < n; ++s)
      a += D(c.k[static_cast<size_t>(j * n + r)]) * P[static_cast<size_t>(r * n + s)] * D(c.q[static_cast<size_t>(t * n + s)]);
  return D(c.beta[static_cast<size_t>(j)]) * a;
}

// a_{t,·} over every row [0, t] by the backward recursion in one forward.
std::vector<float> Row(const Case& c, int64_t t) {
  std::vector<float> a(static_cast<size_t>(c.T));
  HiddenAttentionRow(Input(c), t, nullptr, nullptr, 0, a.data());
  return a;
}

// The same with rows [0, split) folded first (an earlier forward), the rest in this forward.
std::vector<float> RowSplit(const Case& c, int64_t t, int64_t split) {
  std::vector<float> w;
  FoldHiddenRows(Input(c), split, nullptr, w);
  std::vector<float> a(static_cast<size_t>(c.T));
  HiddenAttentionRow(Input(c, split), t - split, nullptr, w.data(), split, a.data());
  return a;
}

float MaxBruteForceError(const Case& c, const std::vector<float>& a, int64_t t) {
  float worst = 0.0f;
  for (int64_t j = 0; j <= t; ++j)
    worst = std::max(worst, static_cast<float>(std::abs(D(a[static_cast<size_t>(j)]) - BruteForce(c, t, j))));
  return worst;
}

// max over t, channels of |Σ_j a_{t,j} v_{j+shift} − o_t| with o from the recurrent delta rule
// (S0 = 0) on c and a from used_for_a; shift 0 is the claim, shift 1 a bookkeeping error.
float MaxOutputError(const Case& c, const Case& used_for_a, int64_t shift = 0) {
  std::vector<float> S(static_cast<size_t>(c.dk * c.dv), 0.0f), o(static_cast<size_t>(c.T * c.dv));
  DeltaRuleRecurrent(Input(c), S.data(), o.data(), c.dv);
  float worst = 0.0f;
  for (int64_t t = 0; t < c.T; ++t) {
    const std::vector<float> a = Row(used_for_a, t);
    for (int b = 0; b < c.dv; ++b) {
      double sum = 0.0;
      for (int64_t j = 0; j <= t && j + shift < c.T; ++j)
        sum += D(a[static_cast<size_t>(j)]) * D(c.v[static_cast<size_t>((j + shift) * c.dv + b)]);
      worst = std::max(worst, static_cast<float>(std::abs(sum - D(o[static_cast<size_t>(t * c.dv + b)]))));
    }
  }
  return worst;
}

TEST(HiddenAttention, MatchesTheExplicitProductOfTransitions) {
  const Case c = MakeCase(20, 8, 5, 11u);
  for (int64_t t : {0, 1, 7, 19}) {
    EXPECT_LE(MaxBruteForceError(c, Row(c, t), t), kTol) << "t=" << t;
    for (int64_t split : {int64_t{1}, int64_t{5}, t}) {
      if (split > t) continue;
      EXPECT_LE(MaxBruteForceError(c, RowSplit(c, t, split), t), kTol) << "t=" << t << " split=" << split;
    }
  }
}

TEST(HiddenAttention, WeightedValuesReproduceTheDeltaRuleOutput) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const Case c = MakeCase(24, 16, 8, seed);
    const float err = MaxOutputError(c, c);
    EXPECT_LE(err, kTol) << "seed " << seed;
    std::printf("seed %u: max |sum_j a_tj v_j - o_t| = %.3g (negative control, next row's values: %.3g)\n", seed,
                static_cast<double>(err), static_cast<double>(MaxOutputError(c, c, 1)));
  }
}

// The row total Σ_j a_{t,j} over every row (the layer × head shares' denominator): through the
// folded z when rows [0, split) came in an earlier forward that tracked none of them, against
// the brute force summed row by row. Control: z left out misses the earlier rows.
TEST(HiddenAttention, RowTotalThroughTheFoldedSumMatchesTheBruteForce) {
  const Case c = MakeCase(20, 8, 5, 7u);
  const std::vector<uint8_t> none(20, 0);
  double control = 0.0;  // the largest miss without z (decays shrink far rows' share)
  for (int64_t t : {3, 12, 19})
    for (int64_t split : {int64_t{0}, int64_t{2}, t}) {
      std::vector<float> w, z(static_cast<size_t>(c.dk), 0.0f);
      FoldHiddenRows(Input(c), split, none.data(), w, z.data());
      ASSERT_TRUE(w.empty()) << "untracked rows keep no w_j";
      std::vector<float> a(1);
      float total = 0.0f, without_z = 0.0f;
      HiddenAttentionRow(Input(c, split), t - split, none.data(), nullptr, 0, a.data(), z.data(), &total);
      HiddenAttentionRow(Input(c, split), t - split, none.data(), nullptr, 0, a.data(), nullptr, &without_z);
      double brute = 0.0, brute_this = 0.0;
      for (int64_t j = 0; j <= t; ++j) {
        brute += BruteForce(c, t, j);
        if (j >= split) brute_this += BruteForce(c, t, j);
      }
      EXPECT_NEAR(D(total), brute, kTol) << "t=" << t << " split=" << split;
      EXPECT_NEAR(D(without_z), brute_this, kTol);
      control = std::max(control, std::abs(D(without_z) - brute));
    }
  EXPECT_GT(control, 100 * kTol) << "control: the folded rows count";
}

TEST(HiddenAttention, NegativeControlsAreCaught) {
  const Case c = MakeCase(20, 8, 5, 11u);
  Case no_decay = c;  // one α dropped: row 18's decay taken as 1
  no_decay.g[18] = 0.0f;
  EXPECT_GT(MaxBruteForceError(c, Row(no_decay, 19), 19), 100 * kTol);
  EXPECT_GT(MaxOutputError(c, no_decay), 100 * kTol);
  EXPECT_GT(MaxOutputError(c, c, /*shift=*/1), 100 * kTol);  // weights paired with the next row's values
}

// ---- tiny-a's own layers ----

// Keeps every reported row of one DeltaNet layer, per forward.
class HiddenRecorder : public AttentionObserver {
 public:
  explicit HiddenRecorder(int layer) : layer_(layer) {}
  Rows rows() const override { return Rows::kAll; }
  void OnAttention(const AttentionProbs&) override {}
  bool wants_hidden_attention() const override { return true; }
  void OnHiddenAttention(const HiddenAttentionWeights& w) override {
    ++calls;
    if (w.layer != layer_) return;
    last = w;
    positions.assign(w.positions, w.positions + w.n_keys);
    weights.assign(w.weights, w.weights + w.n_heads * w.n_queries * w.n_keys);
    if (w.totals) totals.assign(w.totals, w.totals + w.n_heads * w.n_queries);
    else totals.clear();
    last.positions = positions.data();
    last.weights = weights.data();
    last.totals = totals.empty() ? nullptr : totals.data();
  }
  int calls = 0;
  HiddenAttentionWeights last;
  std::vector<int64_t> positions;
  std::vector<float> weights, totals;

 private:
  int layer_;
};

struct LayerRun {
  const testing::TinyModel& m = testing::GetTinyModel();
  int layer = -1;
  LmState state;
  std::vector<float> values;  // [position][nv·dv] v of every row so far (from the trace)
  float worst = 0.0f;         // max |Σ_j a v − o| so far
  float worst_total = 0.0f;   // max |total − Σ_j a_{t,j}| so far (every row tracked)

  LayerRun() {
    for (size_t i = 0; i < m.cfg.text.layer_types.size(); ++i)
      if (m.cfg.text.layer_types[i] == LayerType::kLinearAttention) {
        layer = static_cast<int>(i);
        break;
      }
    state = m.model.NewState();
    m.model.EnableHiddenAttention(state, /*every_row=*/true);
  }

  int64_t Vd() const { return int64_t{m.cfg.text.linear_num_value_heads} * m.cfg.text.linear_value_head_dim; }

  // One forward of `ids` (optionally a verify keeping row states); checks every row's output.
  void Step(std::vector<int64_t> ids, RowStates* row_states = nullptr, DeltaRuleMode mode = DeltaRuleMode::kAuto) {
    const TextConfig& c = m.cfg.text;
    const int64_t nv = c.linear_num_value_heads, dv = c.linear_value_head_dim;
    const int64_t Kd = int64_t{c.linear_num_key_heads} * c.linear_key_head_dim, Cd = c.conv_dim(), Vd = nv * dv;
    ForwardInput in;
    in.ids = ids;
    in.all_logits = row_states != nullptr;
    in.row_states = row_states;
    in.delta_rule = mode;
    LmTrace trace;
    trace.linear_layer = layer;
    in.trace = &trace;
    HiddenRecorder rec(layer);
    ForwardOutput out;
    const int64_t first = state.n_tokens, T = static_cast<int64_t>(ids.size());
    m.model.Forward(in, state, out, nullptr, &rec);
    values.resize(static_cast<size_t>((first + T) * Vd));
    for (int64_t t = 0; t < T; ++t)
      std::copy_n(trace.linear.conv_out.data() + t * Cd + 2 * Kd, Vd, values.data() + (first + t) * Vd);
    ASSERT_EQ(rec.last.n_queries, T);
    ASSERT_EQ(rec.last.n_keys, first + T);  // every row tracked
    ASSERT_NE(rec.last.totals, nullptr) << "tracking began at row 0: the totals are known";
    for (int64_t k = 0; k < rec.last.n_keys; ++k) ASSERT_EQ(rec.positions[static_cast<size_t>(k)], k);
    for (int64_t t = 0; t < T; ++t)
      for (int64_t h = 0; h < nv; ++h) {
        const float* a = rec.last.row(static_cast<int>(h), t);
        for (int64_t b = 0; b < dv; ++b) {
          double sum = 0.0;
          for (int64_t j = 0; j <= first + t; ++j) sum += D(a[j]) * D(values[static_cast<size_t>(j * Vd + h * dv + b)]);
          const float o = trace.linear.core_attn_out[static_cast<size_t>(t * Vd + h * dv + b)];
          worst = std::max(worst, static_cast<float>(std::abs(sum - D(o))));
        }
        for (int64_t j = first + t + 1; j < rec.last.n_keys; ++j) ASSERT_EQ(a[j], 0.0f) << "causal";
        double row_sum = 0.0;  // every row is tracked here, so the total is the explicit sum
        for (int64_t j = 0; j <= first + t; ++j) row_sum += D(a[j]);
        worst_total = std::max(worst_total, static_cast<float>(std::abs(D(*rec.last.total(static_cast<int>(h), t)) - row_sum)));
      }
  }
};

TEST(HiddenAttention, ReproducesTinyLayersOutputThroughPrefillDecodeAndRollback) {
  LayerRun run;
  ASSERT_GE(run.layer, 0);
  run.Step({5, 17, 3, 99, 42, 7, 8, 1, 2, 250, 31, 64}, nullptr, DeltaRuleMode::kChunked);  // prefill
  run.Step({12});                                                                           // decode
  run.Step({13, 14, 15});  // a short continuation, recurrent
  EXPECT_LE(run.worst, 1e-5f) << "prefill + decode";
  // A speculative verify of 3 rows, rolled back to its first row; the next forward folds only it.
  RowStates rs;
  const int64_t before = run.state.n_tokens;
  run.Step({20, 21, 22}, &rs);
  run.state.KeepTokens(before + 1, before, rs, nullptr);
  run.values.resize(static_cast<size_t>((before + 1) * run.Vd()));  // the dropped rows' values go too
  run.Step({23});
  EXPECT_LE(run.worst, 1e-5f) << "after a rolled-back verify";
  EXPECT_LE(run.worst_total, 1e-5f) << "the row totals (folded z) equal the rows' explicit sum";
  std::printf("tiny-a layer %d: max |sum_j a_tj v_j - o_t| = %.3g\n", run.layer, static_cast<double>(run.worst));
}

TEST(HiddenAttention, NegativeControlADecayDroppedInTheFoldIsCaught) {
  LayerRun run;
  run.Step({5, 17, 3, 99, 42, 7});
  ASSERT_LE(run.worst, 1e-4f);
  const size_t nv = static_cast<size_t>(run.m.cfg.text.linear_num_value_heads);
  for (size_t h = 0; h < nv; ++h)  // row 4's α lost when folded (rows 0-3 pass through it)
    run.state.hidden.layers[static_cast<size_t>(run.layer)].g[4 * nv + h] = 0.0f;
  run.Step({12, 13});
  EXPECT_GT(run.worst, 1e-2f);
  std::printf("negative control (one decay lost in the fold): max error %.3g\n", static_cast<double>(run.worst));
}

TEST(HiddenAttention, TracksImageRowsOnlyAndCostsNothingWhenOff) {
  const testing::TinyModel& m = testing::GetTinyModel();
  const int64_t H = m.cfg.text.hidden_size;
  std::vector<int64_t> ids = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> img(static_cast<size_t>(3 * H), 0.01f);
  std::vector<EmbeddingOverride> ov = {{2, img.data()}, {3, img.data() + H}, {4, img.data() + 2 * H}};
  ForwardInput in;
  in.ids = ids;
  in.overrides = ov;
  HiddenRecorder rec(0);
  ForwardOutput out;

  LmState off = m.model.NewState();  // not enabled: no calls, nothing stored
  m.model.Forward(in, off, out, nullptr, &rec);
  EXPECT_EQ(rec.calls, 0);
  EXPECT_EQ(off.hidden.ByteSize(), 0u);

  LmState on = m.model.NewState();
  m.model.EnableHiddenAttention(on);
  m.model.Forward(in, on, out, nullptr, &rec);
  EXPECT_GT(rec.calls, 0);
  // The image rows, and row 0: the sink of the layer × head shares.
  EXPECT_EQ(rec.positions, (std::vector<int64_t>{0, 2, 3, 4}));
  EXPECT_NE(rec.last.totals, nullptr);
  const int64_t next = 9;
  in = ForwardInput{};
  in.ids = std::span<const int64_t>(&next, 1);
  m.model.Forward(in, on, out, nullptr, &rec);
  EXPECT_EQ(rec.positions, (std::vector<int64_t>{0, 2, 3, 4}));  // text rows are not tracked
  EXPECT_EQ(on.hidden.positions, (std::vector<int64_t>{0, 2, 3, 4}));

  // Enabled on a state that already holds tokens: no sink row, no totals.
  LmState late = m.model.NewState();
  in = ForwardInput{};
  in.ids = ids;
  m.model.Forward(in, late, out, nullptr, nullptr);
  m.model.EnableHiddenAttention(late);
  in = ForwardInput{};
  in.ids = std::span<const int64_t>(&next, 1);
  const std::vector<EmbeddingOverride> one_image = {{0, img.data()}};
  in.overrides = one_image;  // an image row after capture began: tracked, but row 0 is not
  HiddenRecorder late_rec(0);
  m.model.Forward(in, late, out, nullptr, &late_rec);
  ASSERT_GT(late_rec.calls, 0);
  EXPECT_EQ(late_rec.positions, (std::vector<int64_t>{8}));
  EXPECT_EQ(late_rec.last.totals, nullptr);
}

}  // namespace
}  // namespace glance::lm
