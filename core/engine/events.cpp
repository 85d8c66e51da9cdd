#include "core/engine/events.h"

namespace glance {

std::vector<float> AttentionMap::Select(int layer_slot, int head) const {
  const size_t cells = static_cast<size_t>(grid_h) * static_cast<size_t>(grid_w);
  const int n_layers = static_cast<int>(layers.size());
  if (layer_slot < 0 && head < 0 && mean.size() == cells) return mean;
  std::vector<float> out(cells, 0.0f);
  if (cells == 0 || n_layers == 0 || n_heads == 0 ||
      weights.size() != cells * static_cast<size_t>(n_layers * n_heads))
    return out;
  int count = 0;
  for (int l = 0; l < n_layers; ++l) {
    if (layer_slot >= 0 && l != layer_slot) continue;
    for (int h = 0; h < n_heads; ++h) {
      if (head >= 0 && h != head) continue;
      const float* src = weights.data() + (static_cast<size_t>(l * n_heads + h)) * cells;
      for (size_t c = 0; c < cells; ++c) out[c] += src[c];
      ++count;
    }
  }
  if (count > 0)
    for (auto& v : out) v /= static_cast<float>(count);
  return out;
}

}  // namespace glance
