#include "core/engine/speculative_sampling.h"

#include <algorithm>
#include <vector>

#include "core/engine/sampler.h"

namespace glance {

SpeculativeChoice AcceptOrResample(std::span<const float> p, std::span<const float> q, int32_t draft,
                                   std::mt19937_64& rng) {
  const size_t d = static_cast<size_t>(draft);
  const double pd = p[d], qd = q[d];
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  if (qd > 0.0 && u < std::min(1.0, pd / qd)) return {draft, true};
  // Rejected: the residual max(0, p - q), renormalised (p itself if rounding left nothing).
  std::vector<double> residual(p.size());
  double sum = 0.0;
  for (size_t i = 0; i < p.size(); ++i) sum += residual[i] = std::max(0.0, double(p[i]) - double(q[i]));
  if (sum <= 0.0) {
    for (size_t i = 0; i < p.size(); ++i) sum += residual[i] = p[i];
  }
  return {DrawIndex<double>(residual, sum, rng), false};
}

}  // namespace glance
