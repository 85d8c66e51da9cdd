#include "ui/attention_data.h"

#include <QString>
#include <algorithm>

#include "core/engine/events_json.h"

namespace glance::ui {

std::vector<float> WordMap(const std::vector<AttentionMap>& maps, const AttentionWord& word,
                           int layer_slot, int head) {
  std::vector<float> sum;
  int count = 0;
  for (const AttentionMap& m : maps) {
    if (m.step < word.first_step || m.step > word.last_step) continue;
    const std::vector<float> one = m.Select(layer_slot, head);
    if (sum.empty()) sum.assign(one.size(), 0.0f);
    if (one.size() != sum.size()) continue;  // a different image's grid: not comparable
    for (size_t i = 0; i < one.size(); ++i) sum[i] += one[i];
    ++count;
  }
  if (count > 1)
    for (float& v : sum) v /= static_cast<float>(count);
  return sum;
}

std::vector<WordAtCell> RankWordsAtCell(const std::vector<AttentionMap>& maps,
                                        const std::vector<AttentionWord>& words, int cell,
                                        int layer_slot, int head) {
  std::vector<WordAtCell> ranked;
  if (cell < 0) return ranked;
  for (size_t w = 0; w < words.size(); ++w) {
    const std::vector<float> map = WordMap(maps, words[w], layer_slot, head);
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
