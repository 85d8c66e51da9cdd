#pragma once
// What a caption's turn shows beside its text (issue 33): where the model looked for each word
// of the answer and how long it took. One map per word — the mean over the word's generated
// tokens of the layer-and-head mean map over the image's token grid — as `glance-cli serve` sends
// it in an answer's "glance" field (server/openai_json.cpp), so a caption made here and one made
// by another machine's server show the same maps.
#include <string>
#include <vector>

#include "core/engine/events.h"
#include "core/engine/session.h"

namespace glance {

struct CaptionWordMap {
  std::string text;
  int grid_h = 0, grid_w = 0;
  std::vector<float> map;  // [grid_h * grid_w]; empty when no step of the word had a map
};

struct CaptionInsight {
  std::vector<CaptionWordMap> words;  // empty when attention was not captured
  TurnStats stats;                    // timing (where it ran: the server's, for a remote caption)
};

// The turn's words with their maps (TurnResult::words over TurnResult::attention).
std::vector<CaptionWordMap> WordMeanMaps(const TurnResult& turn);

inline CaptionInsight InsightFromTurn(const TurnResult& turn) { return {WordMeanMaps(turn), turn.stats}; }

}  // namespace glance
