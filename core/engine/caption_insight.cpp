#include "core/engine/caption_insight.h"

#include <algorithm>

namespace glance {

std::vector<CaptionWordMap> WordMeanMaps(const TurnResult& turn) {
  std::vector<CaptionWordMap> words;
  words.reserve(turn.words.size());
  for (const AttentionWord& w : turn.words) {
    CaptionWordMap out;
    out.text = w.text;
    int n = 0;
    for (const AttentionMap& m : turn.attention) {
      if (m.step < w.first_step || m.step > w.last_step) continue;
      if (out.map.empty()) out.map.assign(m.mean.size(), 0.0f);
      if (m.mean.size() != out.map.size()) continue;
      for (size_t i = 0; i < out.map.size(); ++i) out.map[i] += m.mean[i];
      out.grid_h = m.grid_h;
      out.grid_w = m.grid_w;
      ++n;
    }
    for (float& v : out.map) v /= static_cast<float>(std::max(n, 1));
    words.push_back(std::move(out));
  }
  return words;
}

}  // namespace glance
