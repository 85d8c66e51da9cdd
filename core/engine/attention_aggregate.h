#pragma once
// Aggregates of one token's AttentionMap for display and export (issue 36 item 2): a layer or
// a range of layers of one kind (the full-attention softmax maps or the DeltaNet layers'
// hidden attention, docs/qwen35.md §2.9), heads fused by mean or max (or one head), and the
// display scaling (percentile clipping, log scale) shared by the heatmap and the exports.
//
// Thread contract: pure functions of their arguments.
#include <vector>

#include "core/engine/events.h"

namespace glance {

enum class MapKind { kSoftmax, kHidden };
enum class HeadFusion { kMean, kMax };

struct MapAggregate {
  MapKind kind = MapKind::kSoftmax;
  // Decoder layer indices (not slots), inclusive; -1 leaves that end open. Layers in the range
  // are averaged.
  int first_layer = -1, last_layer = -1;
  int head = -1;                        // one head, or -1: all heads fused by `fusion`
  HeadFusion fusion = HeadFusion::kMean;
};

// The [grid_h·grid_w] map that `a` selects; empty when no layer of that kind lies in the range
// (e.g. hidden attention that was not captured) or `head` is out of range.
// Max fusion takes the largest weight over heads per cell (signed for hidden attention).
std::vector<float> Aggregate(const AttentionMap& m, const MapAggregate& a);

// Aggregate(), except that all softmax layers and heads by mean is the map's stored mean (maps
// reopened from a saved chat may keep only that).
std::vector<float> SelectMap(const AttentionMap& m, const MapAggregate& a);

// A word's map: the mean of SelectMap over the maps whose step lies in the word's
// [first_step, last_step] (maps over another grid than the first are left out). Empty when no
// map matches.
std::vector<float> WordMap(const std::vector<AttentionMap>& maps, const AttentionWord& word, const MapAggregate& a);

// Reverse lookup (issue 36 item 4): the answer's words ranked by the weight their map gives
// `cell`, highest first (ties: the earlier word first). Words without maps, and a cell outside
// the grid, give nothing.
struct WordAtCell {
  int word = 0;        // index into `words`
  float weight = 0.f;  // that word's map at the cell (kRelative: divided by the map's mean)
};
// kRaw ranks by the weight itself; kRelative by the weight over the word's mean weight on the
// whole image ("where this word looked more than usual"): a word that looks at the whole image
// a lot (a function word resting on it) no longer outranks the word that looked at this cell.
// For signed hidden attention the mean of |weight| is the divisor. kContentWords ranks by the
// weight itself but leaves out function words (IsFunctionWord), words without a letter, and words
// whose weight at the cell is not above their mean weight on the image: those looked elsewhere
// or everywhere, not here. Without that last rule a background cell far from every object named
// the object on the demo model of issue 32 (its noun's map spreads more weight over the
// background than the background's colour word gives any one cell): 17.8 % of far cells, 0 %
// with it, the object's middle cell unchanged (test_demo_model). It may leave nothing: no
// content word looked at that cell more than at the rest of the image.
enum class LookupRanking { kRaw, kRelative, kContentWords };

// English articles, prepositions, conjunctions, pronouns and auxiliaries ("a", "the", "on",
// "and", "is", …), compared case-insensitively: words that rest their attention broadly on the
// image and outrank the words that name what is there (issue 36 item 4's measurement).
bool IsFunctionWord(const std::string& word);
std::vector<WordAtCell> RankWordsAtCell(const std::vector<AttentionMap>& maps, const std::vector<AttentionWord>& words,
                                        int cell, const MapAggregate& a, LookupRanking ranking = LookupRanking::kRaw);

// The reverse lookup's default choice: content words, ranked on the last full-attention layer
// with its heads by mean. Measured on the demo model's held-out single-object scenes
// (test_demo_model, NounAttention), the top word at the object's middle cell is its noun or
// colour in 81 % of them this way (87 % on the model before issue 32's tower), against 21 %
// (6.5 %) for every word over all layers (words such as "on" rest their attention on the whole
// image in the earlier layers). Maps that keep only the
// all-layer mean (reopened chats) fall back to it, with content words.
struct LookupChoice {
  MapAggregate aggregate;
  LookupRanking ranking = LookupRanking::kContentWords;
};
LookupChoice DefaultLookup(const std::vector<AttentionMap>& maps);

// The layer × head map (issue 36 item 5): one cell per (kind, layer, head) with the mean of
// AttentionMap::shares / linear_shares over the maps whose step lies in [first_step, last_step].
// Softmax layers first, then the DeltaNet layers, each in layer order and head order. Maps
// without shares (a chat saved without them) or of another layout than the first are left out;
// a saved chat may keep them per word (ui/attention_codec.h), on the word's first map.
struct HeadShare {
  MapKind kind = MapKind::kSoftmax;
  int layer = 0, head = 0;
  float image = 0.f, text = 0.f, sink = 0.f;
};
std::vector<HeadShare> LayerHeadShares(const std::vector<AttentionMap>& maps, int first_step, int last_step);

// The value at percentile p (0..100, linear interpolation between ranks) of `values`; 0 when empty.
float Percentile(std::vector<float> values, double p);

// Maps values to [0, 1] for colouring: clipped to [lo, hi] (lo < hi; callers pass a map's own
// or a global range, e.g. Percentile(…, 1) and Percentile(…, 99)), then linear, or with
// log_scale log(1 + 1000 x') / log(1001) of the linear x' (small weights become visible).
std::vector<float> ScaleForDisplay(const std::vector<float>& map, float lo, float hi, bool log_scale);

}  // namespace glance
