#include "core/engine/logprobs.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace glance {

GeneratedLogprobs ComputeLogprobs(std::span<const float> logits, int64_t n, float temperature, int32_t chosen, int top) {
  n = std::min<int64_t>(n, static_cast<int64_t>(logits.size()));
  const double inv_t = 1.0 / static_cast<double>(temperature > 0.0f ? temperature : 1.0f);
  // log-softmax with the maximum subtracted first (the usual stable form).
  float max_l = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i) max_l = std::max(max_l, logits[static_cast<size_t>(i)]);
  double sum = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const float l = logits[static_cast<size_t>(i)];
    if (l != -std::numeric_limits<float>::infinity()) sum += std::exp((static_cast<double>(l) - max_l) * inv_t);
  }
  const double log_z = std::log(sum);
  auto logprob = [&](int32_t id) {
    return static_cast<float>((static_cast<double>(logits[static_cast<size_t>(id)]) - max_l) * inv_t - log_z);
  };
  GeneratedLogprobs out;
  out.chosen = {chosen, chosen >= 0 && chosen < n ? logprob(chosen) : -std::numeric_limits<float>::infinity()};
  top = std::clamp(top, 0, kMaxTopLogprobs);
  if (top == 0) return out;
  // The `top` largest logits (finite ones only), by a bounded insertion.
  std::vector<int32_t> best;
  auto better = [&](int32_t a, int32_t b) {
    const float la = logits[static_cast<size_t>(a)], lb = logits[static_cast<size_t>(b)];
    return la > lb || (la == lb && a < b);
  };
  for (int64_t i = 0; i < n; ++i) {
    const int32_t id = static_cast<int32_t>(i);
    if (logits[static_cast<size_t>(i)] == -std::numeric_limits<float>::infinity()) continue;
    if (best.size() == static_cast<size_t>(top) && !better(id, best.back())) continue;
    best.insert(std::upper_bound(best.begin(), best.end(), id, better), id);
    if (best.size() > static_cast<size_t>(top)) best.pop_back();
  }
  for (int32_t id : best) out.top.push_back({id, logprob(id)});
  return out;
}

}  // namespace glance
