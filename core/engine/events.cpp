#include "core/engine/events.h"

namespace glance {

namespace {

// Mean over the chosen layer slot(s) and head(s) of [n_layers][n_heads][cells] weights.
std::vector<float> MeanOf(const std::vector<float>& weights, size_t cells, int n_layers, int n_heads, int layer_slot,
                          int head) {
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

}  // namespace

std::vector<float> AttentionMap::Select(int layer_slot, int head) const {
  const size_t cells = static_cast<size_t>(grid_h) * static_cast<size_t>(grid_w);
  if (layer_slot < 0 && head < 0 && mean.size() == cells) return mean;
  return MeanOf(weights, cells, static_cast<int>(layers.size()), n_heads, layer_slot, head);
}

std::vector<float> AttentionMap::SelectLinear(int layer_slot, int head) const {
  const size_t cells = static_cast<size_t>(grid_h) * static_cast<size_t>(grid_w);
  return MeanOf(linear_weights, cells, static_cast<int>(linear_layers.size()), linear_heads, layer_slot, head);
}

}  // namespace glance
