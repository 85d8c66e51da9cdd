#pragma once
// Pure helpers behind the attention panel: the map of a word for a layer slot and head, the
// JSON export of the raw per-token maps. No widgets.
#include <QByteArray>
#include <QString>
#include <vector>

#include "core/engine/attention_aggregate.h"
#include "core/engine/events.h"

namespace glance::ui {

// A word's map for a full-attention layer slot (index into AttentionMap::layers; -1: all) and
// head (-1: the mean of all): core's WordMap (attention_aggregate.h) for that choice. The maps
// under any layer of either kind, head fusion, and the reverse lookup (RankWordsAtCell) are
// core's, used as they are.
std::vector<float> WordMap(const std::vector<AttentionMap>& maps, const AttentionWord& word,
                           int layer_slot, int head);
using glance::RankWordsAtCell;
using glance::DefaultLookup;
using glance::LookupChoice;
using glance::SelectMap;
using glance::WordAtCell;
using glance::WordMap;

// One word per token, for when no grouping is available (e.g. while streaming).
std::vector<AttentionWord> TokensAsWords(const std::vector<AttentionMap>& maps);

// The attention export: core's one attention schema (events_json.h AttentionExport); weights
// are [layer][head][cell]; model/precision name what produced the maps (omitted when empty).
QByteArray AttentionToJson(const std::vector<AttentionMap>& maps,
                           const std::vector<AttentionWord>& words, const QString& model = {},
                           const QString& precision = {});

}  // namespace glance::ui
