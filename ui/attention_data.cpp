#include "ui/attention_data.h"

#include <QString>
#include <algorithm>

#include "core/engine/events_json.h"

namespace glance::ui {

namespace {

// The mean of `one(map)` over the maps whose step lies in the word's [first_step, last_step].
template <typename OneMap>
std::vector<float> MeanOverWord(const std::vector<AttentionMap>& maps, const AttentionWord& word, OneMap one_map) {
  std::vector<float> sum;
  int count = 0;
  for (const AttentionMap& m : maps) {
    if (m.step < word.first_step || m.step > word.last_step) continue;
    const std::vector<float> one = one_map(m);
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

}  // namespace

std::vector<float> WordMap(const std::vector<AttentionMap>& maps, const AttentionWord& word,
                           int layer_slot, int head) {
  return MeanOverWord(maps, word, [&](const AttentionMap& m) { return m.Select(layer_slot, head); });
}

std::vector<float> WordMap(const std::vector<AttentionMap>& maps, const AttentionWord& word,
                           const MapAggregate& aggregate) {
  return MeanOverWord(maps, word, [&](const AttentionMap& m) { return SelectMap(m, aggregate); });
}

std::vector<float> SelectMap(const AttentionMap& m, const MapAggregate& a) {
  if (a.kind == MapKind::kSoftmax && a.first_layer < 0 && a.last_layer < 0 && a.head < 0 &&
      a.fusion == HeadFusion::kMean)
    return m.Select(-1, -1);
  return Aggregate(m, a);
}

std::vector<WordAtCell> RankWordsAtCell(const std::vector<AttentionMap>& maps,
                                        const std::vector<AttentionWord>& words, int cell,
                                        const MapAggregate& aggregate) {
  std::vector<WordAtCell> ranked;
  if (cell < 0) return ranked;
  for (size_t w = 0; w < words.size(); ++w) {
    const std::vector<float> map = WordMap(maps, words[w], aggregate);
    if (static_cast<size_t>(cell) < map.size()) ranked.push_back({static_cast<int>(w), map[static_cast<size_t>(cell)]});
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const WordAtCell& a, const WordAtCell& b) { return a.weight > b.weight; });
  return ranked;
}

std::vector<AttentionWord> TokensAsWords(const std::vector<AttentionMap>& maps) {
  std::vector<AttentionWord> words;
  words.reserve(maps.size());
  for (const AttentionMap& m : maps) words.push_back({m.token_text, m.step, m.step});
  return words;
}

QByteArray AttentionToJson(const std::vector<AttentionMap>& maps,
                           const std::vector<AttentionWord>& words, const QString& model,
                           const QString& precision) {
  const AttentionExport doc{model.toStdString(), precision.toStdString(), maps, words};
  return QByteArray::fromStdString(ToJson(doc).dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace glance::ui
