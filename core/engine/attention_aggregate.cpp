#include "core/engine/attention_aggregate.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <string_view>

namespace glance {

std::vector<float> Aggregate(const AttentionMap& m, const MapAggregate& a) {
  const bool hidden = a.kind == MapKind::kHidden;
  const std::vector<int>& layers = hidden ? m.linear_layers : m.layers;
  const std::vector<float>& weights = hidden ? m.linear_weights : m.weights;
  const int n_heads = hidden ? m.linear_heads : m.n_heads;
  const size_t cells = static_cast<size_t>(m.grid_h) * static_cast<size_t>(m.grid_w);
  if (cells == 0 || n_heads <= 0 || a.head >= n_heads ||
      weights.size() != layers.size() * static_cast<size_t>(n_heads) * cells)
    return {};
  std::vector<float> out(cells, 0.0f);
  int n_layers = 0;
  for (size_t slot = 0; slot < layers.size(); ++slot) {
    const int layer = layers[slot];
    if ((a.first_layer >= 0 && layer < a.first_layer) || (a.last_layer >= 0 && layer > a.last_layer)) continue;
    ++n_layers;
    const float* base = weights.data() + slot * static_cast<size_t>(n_heads) * cells;
    for (size_t c = 0; c < cells; ++c) {
      float v;
      if (a.head >= 0) {
        v = base[static_cast<size_t>(a.head) * cells + c];
      } else if (a.fusion == HeadFusion::kMax) {
        v = -std::numeric_limits<float>::infinity();
        for (int h = 0; h < n_heads; ++h) v = std::max(v, base[static_cast<size_t>(h) * cells + c]);
      } else {
        v = 0.0f;
        for (int h = 0; h < n_heads; ++h) v += base[static_cast<size_t>(h) * cells + c];
        v /= static_cast<float>(n_heads);
      }
      out[c] += v;
    }
  }
  if (n_layers == 0) return {};
  for (float& v : out) v /= static_cast<float>(n_layers);
  return out;
}

std::vector<float> SelectMap(const AttentionMap& m, const MapAggregate& a) {
  if (a.kind == MapKind::kSoftmax && a.first_layer < 0 && a.last_layer < 0 && a.head < 0 && a.fusion == HeadFusion::kMean)
    return m.Select(-1, -1);
  return Aggregate(m, a);
}

std::vector<float> WordMap(const std::vector<AttentionMap>& maps, const AttentionWord& word, const MapAggregate& a) {
  std::vector<float> sum;
  int count = 0;
  for (const AttentionMap& m : maps) {
    if (m.step < word.first_step || m.step > word.last_step) continue;
    const std::vector<float> one = SelectMap(m, a);
    if (one.empty()) continue;  // not captured for this token (hidden attention)
    if (sum.empty()) sum.assign(one.size(), 0.0f);
    if (one.size() != sum.size()) continue;  // a different image's grid: not comparable
    for (size_t i = 0; i < one.size(); ++i) sum[i] += one[i];
    ++count;
  }
  if (count > 1)
    for (float& v : sum) v /= static_cast<float>(count);
  return sum;
}

bool IsFunctionWord(const std::string& word) {
  static constexpr std::array<std::string_view, 48> kWords = {
      "a",    "an",   "the",  "on",    "in",   "at",    "of",   "and",   "or",   "but",  "with", "to",
      "from", "by",   "for",  "into",  "onto", "over",  "under", "near", "as",   "is",   "are",  "was",
      "were", "be",   "been", "has",   "have", "had",   "it",   "its",   "this", "that", "these", "those",
      "there", "here", "which", "who",  "what", "some",  "one",  "each",  "very", "also", "than", "then"};
  std::string lower;
  for (char c : word)
    if (std::isalpha(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80 || c == '\'')
      lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return std::find(kWords.begin(), kWords.end(), lower) != kWords.end();
}

namespace {
bool HasLetter(const std::string& word) {
  for (char c : word)
    if (std::isalpha(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80) return true;
  return false;
}
}  // namespace

std::vector<WordAtCell> RankWordsAtCell(const std::vector<AttentionMap>& maps, const std::vector<AttentionWord>& words,
                                        int cell, const MapAggregate& a, LookupRanking ranking) {
  std::vector<WordAtCell> ranked;
  if (cell < 0) return ranked;
  for (size_t w = 0; w < words.size(); ++w) {
    const std::vector<float> map = WordMap(maps, words[w], a);
    if (static_cast<size_t>(cell) >= map.size()) continue;
    if (ranking == LookupRanking::kContentWords && (IsFunctionWord(words[w].text) || !HasLetter(words[w].text))) continue;
    float weight = map[static_cast<size_t>(cell)];
    double mean = 0.0;  // of |weight| over the image (signed hidden attention counts by size); kRaw needs none
    if (ranking != LookupRanking::kRaw) {
      for (float v : map) mean += std::abs(static_cast<double>(v));
      mean /= static_cast<double>(map.size());
    }
    if (ranking == LookupRanking::kContentWords && !(static_cast<double>(weight) > mean)) continue;  // looked elsewhere
    if (ranking == LookupRanking::kRelative)
      weight = mean > 0.0 ? static_cast<float>(static_cast<double>(weight) / mean) : 0.0f;
    ranked.push_back({static_cast<int>(w), weight});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const WordAtCell& x, const WordAtCell& y) { return x.weight > y.weight; });
  return ranked;
}

LookupChoice DefaultLookup(const std::vector<AttentionMap>& maps) {
  LookupChoice choice;
  for (const AttentionMap& m : maps) {
    const size_t cells = static_cast<size_t>(m.grid_h) * static_cast<size_t>(m.grid_w);
    if (m.layers.empty() || m.n_heads <= 0 || m.weights.size() != m.layers.size() * static_cast<size_t>(m.n_heads) * cells)
      continue;  // only the mean was kept
    choice.aggregate.first_layer = choice.aggregate.last_layer = m.layers.back();
    break;
  }
  return choice;
}

namespace {
// The layout of a map's shares of one kind (AttentionMap::share_layers: a reopened map's own,
// else its weights').
const std::vector<int>& ShareLayers(const AttentionMap& m, MapKind kind) {
  if (kind == MapKind::kHidden) return m.linear_share_layers.empty() ? m.linear_layers : m.linear_share_layers;
  return m.share_layers.empty() ? m.layers : m.share_layers;
}
int ShareHeads(const AttentionMap& m, MapKind kind) {
  if (kind == MapKind::kHidden) return m.linear_share_layers.empty() ? m.linear_heads : m.linear_share_heads;
  return m.share_layers.empty() ? m.n_heads : m.share_heads;
}
}  // namespace

std::vector<HeadShare> LayerHeadShares(const std::vector<AttentionMap>& maps, int first_step, int last_step) {
  std::vector<HeadShare> out;
  for (const MapKind kind : {MapKind::kSoftmax, MapKind::kHidden}) {
    const bool hidden = kind == MapKind::kHidden;
    std::vector<double> sum;
    const AttentionMap* layout = nullptr;
    int count = 0;
    for (const AttentionMap& m : maps) {
      if (m.step < first_step || m.step > last_step) continue;
      const std::vector<float>& s = hidden ? m.linear_shares : m.shares;
      const std::vector<int>& layers = ShareLayers(m, kind);
      const int heads = ShareHeads(m, kind);
      if (s.empty() || s.size() != 3 * layers.size() * static_cast<size_t>(std::max(heads, 0))) continue;
      if (!layout) {
        layout = &m;
        sum.assign(s.size(), 0.0);
      } else if (layers != ShareLayers(*layout, kind) || s.size() != sum.size()) {
        continue;
      }
      for (size_t i = 0; i < s.size(); ++i) sum[i] += static_cast<double>(s[i]);
      ++count;
    }
    if (!layout) continue;
    const std::vector<int>& layers = ShareLayers(*layout, kind);
    const int heads = ShareHeads(*layout, kind);
    for (size_t slot = 0; slot < layers.size(); ++slot)
      for (int h = 0; h < heads; ++h) {
        const size_t at = 3 * (slot * static_cast<size_t>(heads) + static_cast<size_t>(h));
        out.push_back({kind, layers[slot], h, static_cast<float>(sum[at] / count), static_cast<float>(sum[at + 1] / count),
                       static_cast<float>(sum[at + 2] / count)});
      }
  }
  return out;
}

float Percentile(std::vector<float> values, double p) {
  if (values.empty()) return 0.0f;
  std::sort(values.begin(), values.end());
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  const double f = rank - static_cast<double>(lo);
  return static_cast<float>(static_cast<double>(values[lo]) * (1.0 - f) + static_cast<double>(values[hi]) * f);
}

std::vector<float> ScaleForDisplay(const std::vector<float>& map, float lo, float hi, bool log_scale) {
  std::vector<float> out(map.size(), 0.0f);
  if (!(hi > lo)) return out;  // a flat map (or an empty range) shows as nothing
  const double span = static_cast<double>(hi) - static_cast<double>(lo);
  for (size_t c = 0; c < map.size(); ++c) {
    double x = (static_cast<double>(std::clamp(map[c], lo, hi)) - static_cast<double>(lo)) / span;
    if (log_scale) x = std::log1p(1000.0 * x) / std::log(1001.0);
    out[c] = static_cast<float>(x);
  }
  return out;
}

}  // namespace glance
