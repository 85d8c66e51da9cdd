#pragma once
// Pure helpers behind the attention panel: the map of a word (mean over its tokens) for a
// layer/head choice, and the JSON export of the raw per-token maps. No widgets.
#include <QByteArray>
#include <QString>
#include <vector>

#include "core/engine/attention_aggregate.h"
#include "core/engine/events.h"

namespace glance::ui {

// Mean of AttentionMap::Select(layer_slot, head) over the maps whose step lies in the word's
// [first_step, last_step]. Empty when no map matches.
std::vector<float> WordMap(const std::vector<AttentionMap>& maps, const AttentionWord& word,
                           int layer_slot, int head);
// One token's map under an aggregate: Aggregate(), except that all softmax layers and heads
// by mean is the map's stored mean (maps reopened from a saved chat may keep only that).
std::vector<float> SelectMap(const AttentionMap& m, const MapAggregate& aggregate);
// The same under any aggregate (core/engine/attention_aggregate.h): a layer or all layers of
// either kind (softmax or DeltaNet hidden attention), one head or all fused by mean or max.
std::vector<float> WordMap(const std::vector<AttentionMap>& maps, const AttentionWord& word,
                           const MapAggregate& aggregate);

// Reverse lookup (issue 36 item 4): the answer's words ranked by the weight their map (WordMap
// under the layer/head choice) gives `cell`, highest first (ties: earlier word first). Words
// without maps, and a cell outside the grid, give nothing.
struct WordAtCell {
  int word = 0;        // index into `words`
  float weight = 0.f;  // that word's map at the cell
};
std::vector<WordAtCell> RankWordsAtCell(const std::vector<AttentionMap>& maps,
                                        const std::vector<AttentionWord>& words, int cell,
                                        const MapAggregate& aggregate);

// One word per token, for when no grouping is available (e.g. while streaming).
std::vector<AttentionWord> TokensAsWords(const std::vector<AttentionMap>& maps);

// The attention export: core's one attention schema (events_json.h AttentionExport); weights
// are [layer][head][cell]; model/precision name what produced the maps (omitted when empty).
QByteArray AttentionToJson(const std::vector<AttentionMap>& maps,
                           const std::vector<AttentionWord>& words, const QString& model = {},
                           const QString& precision = {});

}  // namespace glance::ui
