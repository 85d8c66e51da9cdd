// Synthetic attention maps for the attention panel's tests (test_attention_panel,
// test_attention_heatmap_view): a 3x5 grid, two layers of two heads, every token, layer and head
// with its own hot cell.
#pragma once

#include <QColor>
#include <QImage>

#include <vector>

#include "core/engine/attention_aggregate.h"
#include "core/engine/events.h"

namespace attention_samples {

using glance::AttentionMap;
using glance::AttentionWord;

inline constexpr int kGridH = 3, kGridW = 5;  // deliberately not square
inline constexpr int kCells = kGridH * kGridW;
inline constexpr int kLayers = 2, kHeads = 2;

// Token t puts weight 0.6 on cell (3*t + layer + head) % cells and spreads the rest evenly,
// so every token, layer and head has a different hot cell.
inline AttentionMap MakeMap(int step, const char* text) {
  AttentionMap m;
  m.step = step;
  m.token_id = 100 + step;
  m.token_text = text;
  m.grid_h = kGridH;
  m.grid_w = kGridW;
  m.layers = {3, 7};
  m.n_heads = kHeads;
  m.weights.assign(static_cast<size_t>(kLayers * kHeads * kCells), 0.4f / (kCells - 1));
  m.mean.assign(kCells, 0.0f);
  for (int l = 0; l < kLayers; ++l)
    for (int h = 0; h < kHeads; ++h) {
      const int hot = (3 * step + l + 2 * h) % kCells;
      m.weights[static_cast<size_t>((l * kHeads + h) * kCells + hot)] = 0.6f;
    }
  for (int l = 0; l < kLayers; ++l)
    for (int h = 0; h < kHeads; ++h)
      for (int c = 0; c < kCells; ++c)
        m.mean[static_cast<size_t>(c)] +=
            m.weights[static_cast<size_t>((l * kHeads + h) * kCells + c)] / (kLayers * kHeads);
  return m;
}

inline QImage TestImage() {
  QImage img(200, 120, QImage::Format_RGB32);  // 5:3, like the grid
  img.fill(QColor(40, 90, 160));
  return img;
}

// Four tokens, "A", " cat", "s", " sit", in three words: "A" | " cats" (two tokens) | " sit".
inline std::vector<AttentionMap> SampleMaps() {
  return {MakeMap(0, "A"), MakeMap(1, " cat"), MakeMap(2, "s"), MakeMap(3, " sit")};
}
inline std::vector<AttentionWord> SampleWords() { return {{"A", 0, 0}, {" cats", 1, 2}, {" sit", 3, 3}}; }

// A hybrid model's layer x head shares: every fourth layer full attention, the others DeltaNet;
// each cell's image share different.
inline std::vector<glance::HeadShare> HybridHeadShares(int layers, int heads) {
  std::vector<glance::HeadShare> shares;
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h) {
      glance::HeadShare s;
      s.kind = l % 4 == 3 ? glance::MapKind::kSoftmax : glance::MapKind::kHidden;
      s.layer = l;
      s.head = h;
      s.image = 0.01f * static_cast<float>(l + h);
      shares.push_back(s);
    }
  return shares;
}

}  // namespace attention_samples
