#include "core/engine/attention_rollout.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/engine/engine.h"
#include "core/util/error.h"

namespace glance {

void RolloutRecorder::OnAttention(const lm::AttentionProbs& p) {
  // A fresh state's single forward: every row is a query, keys are the same rows.
  if (p.query_begin != 0 || p.first_position != 0 || p.n_keys != p.n_queries) return;
  T_ = p.n_queries;
  std::vector<double> a(static_cast<size_t>(T_ * T_), 0.0);
  for (int h = 0; h < p.n_heads; ++h)
    for (int64_t t = 0; t < T_; ++t) {
      const float* row = p.row(h, t);
      for (int64_t j = 0; j <= t; ++j) a[static_cast<size_t>(t * T_ + j)] += static_cast<double>(row[j]) / p.n_heads;
    }
  layers_[p.layer] = std::move(a);
}

void RolloutRecorder::OnHiddenAttention(const lm::HiddenAttentionWeights& w) {
  if (w.query_begin != 0 || w.first_position != 0 || w.n_keys != w.n_queries) return;  // not every row tracked
  for (int64_t k = 0; k < w.n_keys; ++k)
    if (w.positions[k] != k) return;
  T_ = w.n_queries;
  std::vector<double> a(static_cast<size_t>(T_ * T_), 0.0);
  for (int h = 0; h < w.n_heads; ++h)
    for (int64_t t = 0; t < T_; ++t) {
      const float* row = w.row(h, t);
      for (int64_t j = 0; j <= t; ++j) a[static_cast<size_t>(t * T_ + j)] += std::abs(static_cast<double>(row[j]));
    }
  for (int64_t t = 0; t < T_; ++t) {  // |a| rows normalised; an all-zero row stays zero
    double sum = 0.0;
    for (int64_t j = 0; j <= t; ++j) sum += a[static_cast<size_t>(t * T_ + j)];
    if (sum > 0.0)
      for (int64_t j = 0; j <= t; ++j) a[static_cast<size_t>(t * T_ + j)] /= sum;
  }
  layers_[w.layer] = std::move(a);
}

std::vector<double> RolloutRows(const std::map<int, std::vector<double>>& layers, int64_t T,
                                std::span<const int64_t> queries) {
  const size_t n = static_cast<size_t>(T);
  std::vector<double> out(queries.size() * n, 0.0);
  std::vector<double> r(n), next(n);
  for (size_t q = 0; q < queries.size(); ++q) {
    std::fill(r.begin(), r.end(), 0.0);
    r[static_cast<size_t>(queries[q])] = 1.0;
    // r ← r · Ã_l from the last layer down: row t of Ã_L ⋯ Ã_1.
    for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
      const std::vector<double>& A = it->second;
      std::fill(next.begin(), next.end(), 0.0);
      for (size_t t = 0; t < n; ++t) {
        if (r[t] == 0.0) continue;
        // Row t of Ã = ½(A + I), normalised (A's row sums to 1, or to 0 when it decayed away).
        double sum = 1.0;
        for (size_t j = 0; j <= t; ++j) sum += A[t * n + j];
        const double scale = r[t] / sum;
        for (size_t j = 0; j <= t; ++j) next[j] += scale * A[t * n + j];
        next[t] += scale;
      }
      std::swap(r, next);
    }
    std::copy(r.begin(), r.end(), out.begin() + static_cast<std::ptrdiff_t>(q * n));
  }
  return out;
}

std::vector<AttentionMap> RolloutMaps(const Engine& engine, const PromptStream& prompt,
                                      std::span<const float* const> features, const std::vector<AttentionMap>& answer,
                                      size_t image_run, int image_index, int64_t max_rows) {
  if (image_run >= prompt.runs.size()) throw Error("rollout: the conversation has no image " + std::to_string(image_run));
  if (answer.empty()) return {};
  // The sequence: the prompt, then every answer token but the last (its row chose nothing).
  PromptStream seq = prompt;
  const int64_t P = static_cast<int64_t>(prompt.size());
  for (size_t s = 0; s + 1 < answer.size(); ++s) seq.ids.push_back(answer[s].token_id);
  const int64_t T = static_cast<int64_t>(seq.size());
  if (T > max_rows)
    throw Error("rollout needs every row's attention: this answer's " + std::to_string(T) + " tokens (prompt and answer) "
                "are more than the " + std::to_string(max_rows) + " it takes; try a shorter chat");
  // Positions of the appended text rows: one past the largest so far on all three axes (qwen35.md §2.6).
  lm::MropePositions pos;
  pos.n_tokens = T;
  pos.rope_delta = prompt.positions.rope_delta;
  pos.pos.resize(static_cast<size_t>(3 * T));
  for (int a = 0; a < 3; ++a)
    for (int64_t i = 0; i < T; ++i)
      pos.pos[static_cast<size_t>(a * T + i)] =
          i < P ? prompt.positions.pos[static_cast<size_t>(a * P + i)] : i + prompt.positions.rope_delta;
  seq.positions = std::move(pos);

  lm::LmState state = engine.lm().NewState();
  engine.lm().EnableHiddenAttention(state, /*every_row=*/true);
  RolloutRecorder recorder;
  lm::ForwardOutput out;
  PrefillControl control;
  control.chunk = T;  // one forward: every row sees every earlier row in it
  PrefillRows(engine, seq, 0, static_cast<size_t>(T), features, state, out, &recorder, false, control);
  if (recorder.sequence_rows() != T) throw Error("internal: rollout forward reported no full matrices");

  std::vector<int64_t> queries;
  for (size_t s = 0; s < answer.size(); ++s) queries.push_back(P - 1 + static_cast<int64_t>(s));
  const std::vector<double> rows = RolloutRows(recorder.layers(), T, queries);
  const std::vector<int64_t> image = prompt.ImageRows(image_run);
  const lm::ImageGrid grid = prompt.runs[image_run].grid;
  std::vector<AttentionMap> maps;
  for (size_t s = 0; s < answer.size(); ++s) {
    AttentionMap m;
    m.step = answer[s].step;
    m.token_id = answer[s].token_id;
    m.token_text = answer[s].token_text;
    m.image_index = image_index;
    m.grid_h = static_cast<int>(grid.h);
    m.grid_w = static_cast<int>(grid.w);
    for (int64_t p : image) m.mean.push_back(static_cast<float>(rows[s * static_cast<size_t>(T) + static_cast<size_t>(p)]));
    maps.push_back(std::move(m));
  }
  return maps;
}

}  // namespace glance
