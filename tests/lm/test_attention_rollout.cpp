// Attention rollout (core/engine/attention_rollout.h, issue 36 item 2; Abnar & Zuidema 2020) on
// the tiny golden model's prompt: RolloutRows equals a brute force that builds every layer's
// Ã_l = ½(A_l + I) (rows normalised) as a dense matrix from the raw per-head weights — softmax
// for the full-attention layers, |a_{t,j}| of the hidden attention for the DeltaNet ones — and
// multiplies them out, R = Ã_L ⋯ Ã_1. Controls: without the ½ I (no residual), or with the
// DeltaNet layers left out, the rows differ.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "core/engine/attention_rollout.h"
#include "core/lm/mrope.h"
#include "lm_fixture.h"

namespace glance::lm {
namespace {

using testing::GetGolden;
using testing::GetTinyModel;

// Every layer's raw per-head matrices [heads][T][T], and the recorder under test, fed together.
class BothObservers : public AttentionObserver {
 public:
  Rows rows() const override { return Rows::kAll; }
  bool wants_hidden_attention() const override { return true; }
  void OnAttention(const AttentionProbs& p) override {
    recorder.OnAttention(p);
    Keep(p.layer, false, p.n_heads, p.n_queries, p.probs);
  }
  void OnHiddenAttention(const HiddenAttentionWeights& w) override {
    recorder.OnHiddenAttention(w);
    Keep(w.layer, true, w.n_heads, w.n_queries, w.weights);
  }
  struct Raw {
    bool hidden = false;
    int heads = 0;
    std::vector<float> w;  // [heads][T][T]
  };
  std::map<int, Raw> raw;
  int64_t T = 0;
  RolloutRecorder recorder;

 private:
  void Keep(int layer, bool hidden, int heads, int64_t n, const float* w) {
    T = n;
    raw[layer] = {hidden, heads, std::vector<float>(w, w + heads * n * n)};
  }
};

// Dense Ã_l of one layer: A_l = the head mean of softmax rows, or of |a| rows normalised.
std::vector<double> Tilde(const BothObservers::Raw& r, int64_t T, bool residual) {
  const size_t n = static_cast<size_t>(T);
  std::vector<double> A(n * n, 0.0);
  for (int h = 0; h < r.heads; ++h)
    for (size_t t = 0; t < n; ++t)
      for (size_t j = 0; j < n; ++j) {
        const double x = static_cast<double>(r.w[(static_cast<size_t>(h) * n + t) * n + j]);
        A[t * n + j] += (r.hidden ? std::abs(x) : x) / (r.hidden ? 1.0 : r.heads);
      }
  for (size_t t = 0; t < n; ++t) {
    double sum = 0.0;
    for (size_t j = 0; j < n; ++j) sum += A[t * n + j];
    if (r.hidden && sum > 0.0)
      for (size_t j = 0; j < n; ++j) A[t * n + j] /= sum;
    if (residual) {
      for (size_t j = 0; j < n; ++j) A[t * n + j] *= 0.5;
      A[t * n + t] += 0.5;
    }
    sum = 0.0;
    for (size_t j = 0; j < n; ++j) sum += A[t * n + j];
    for (size_t j = 0; j < n; ++j) A[t * n + j] /= sum;
  }
  return A;
}

// R = Ã_L ⋯ Ã_1, by dense products in layer order (R ← Ã_l · R).
std::vector<double> BruteRollout(const BothObservers& obs, bool residual, bool with_deltanet) {
  const size_t n = static_cast<size_t>(obs.T);
  std::vector<double> R(n * n, 0.0);
  for (size_t i = 0; i < n; ++i) R[i * n + i] = 1.0;
  for (const auto& [layer, raw] : obs.raw) {
    if (raw.hidden && !with_deltanet) continue;
    const std::vector<double> A = Tilde(raw, obs.T, residual);
    std::vector<double> next(n * n, 0.0);
    for (size_t i = 0; i < n; ++i)
      for (size_t k = 0; k < n; ++k)
        if (A[i * n + k] != 0.0)
          for (size_t j = 0; j < n; ++j) next[i * n + j] += A[i * n + k] * R[k * n + j];
    R = std::move(next);
  }
  return R;
}

TEST(AttentionRollout, RowsEqualTheDenseProductOfEveryLayersMatrixOnTinyA) {
  const testing::TinyModel& m = GetTinyModel();
  const testing::Golden& g = GetGolden();
  const auto ids = g.I64("prompt.input_ids");
  const auto embeds = g.F32("prefill.inputs_embeds");
  const auto thw = g.I64("image_grid_thw");
  const int64_t merge = m.cfg.vision.spatial_merge_size;
  const std::vector<ImageGrid> grids = {ImageGrid{thw[1] / merge, thw[2] / merge}};
  const MropePositions pos = ComputeMropePositions(ids, m.cfg.image_token_id, grids);
  LmState state = m.model.NewState();
  m.model.EnableHiddenAttention(state, /*every_row=*/true);
  ForwardInput in;
  in.ids = ids;
  in.embeddings = embeds.data();
  in.positions = pos.pos.data();
  BothObservers obs;
  ForwardOutput out;
  m.model.Forward(in, state, out, nullptr, &obs);
  const int64_t T = static_cast<int64_t>(ids.size());
  ASSERT_EQ(obs.T, T);
  ASSERT_EQ(obs.recorder.sequence_rows(), T);
  ASSERT_EQ(obs.recorder.layers().size(), static_cast<size_t>(m.cfg.text.num_hidden_layers)) << "every layer enters";

  const std::vector<int64_t> queries = {T - 1, T / 2, 0};
  const std::vector<double> rows = RolloutRows(obs.recorder.layers(), T, queries);
  const std::vector<double> brute = BruteRollout(obs, true, true);
  const std::vector<double> no_residual = BruteRollout(obs, false, true);
  const std::vector<double> no_deltanet = BruteRollout(obs, true, false);
  double worst = 0.0, control_residual = 0.0, control_deltanet = 0.0, worst_sum = 0.0;
  for (size_t q = 0; q < queries.size(); ++q) {
    double sum = 0.0;
    for (int64_t j = 0; j < T; ++j) {
      const double got = rows[q * static_cast<size_t>(T) + static_cast<size_t>(j)];
      const size_t at = static_cast<size_t>(queries[q] * T + j);
      worst = std::max(worst, std::abs(got - brute[at]));
      control_residual = std::max(control_residual, std::abs(got - no_residual[at]));
      control_deltanet = std::max(control_deltanet, std::abs(got - no_deltanet[at]));
      sum += got;
    }
    worst_sum = std::max(worst_sum, std::abs(sum - 1.0));
  }
  EXPECT_LE(worst, 1e-9) << "RolloutRows = the dense product";
  EXPECT_LE(worst_sum, 1e-9) << "each rollout row is a distribution";
  EXPECT_GT(control_residual, 1e-3) << "control: the residual's ½ I matters";
  EXPECT_GT(control_deltanet, 1e-3) << "control: the DeltaNet layers enter";
  std::printf("[measured] rollout vs dense product: max |diff| %.3g; controls (no residual %.3g, no DeltaNet %.3g)\n",
              worst, control_residual, control_deltanet);
}

}  // namespace
}  // namespace glance::lm
