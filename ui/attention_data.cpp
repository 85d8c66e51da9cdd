#include "ui/attention_data.h"

#include <QString>
#include <algorithm>

#include "core/engine/events_json.h"

namespace glance::ui {

std::vector<float> WordMap(const std::vector<AttentionMap>& maps, const AttentionWord& word,
                           int layer_slot, int head) {
  MapAggregate a;  // a slot names a layer of the maps' own list
  a.head = head;
  if (layer_slot >= 0) {
    const AttentionMap* first = nullptr;
    for (const AttentionMap& m : maps)
      if (m.step >= word.first_step && m.step <= word.last_step) {
        first = &m;
        break;
      }
    if (!first || static_cast<size_t>(layer_slot) >= first->layers.size()) return {};
    a.first_layer = a.last_layer = first->layers[static_cast<size_t>(layer_slot)];
  }
  return glance::WordMap(maps, word, a);
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
