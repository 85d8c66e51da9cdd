#pragma once
// The attention maps as CSV (issue 36 item 7): one row per cell of every map, long format, for
// spreadsheets, pandas and R. The same data and metadata as the JSON export (events_json.h
// AttentionExport), one schema, documented in docs/design.md "Attention capture":
//   model,precision,step,token_id,token_text,word,word_text,image_index,kind,layer,head,row,col,weight
// kind "mean"     the map averaged over every full-attention layer and head (layer, head empty);
//      "softmax"  one full-attention layer's head: the softmax weight on the image token;
//      "deltanet" one Gated DeltaNet layer's value head: its hidden attention (signed, does not
//                 sum to 1; docs/qwen35.md §2.9), only when it was captured.
// `layer` is the model's layer index, `head` the head within it, `row`/`col` the cell of the
// merged token grid (0-based), `word` the index of the answer word the token belongs to (empty
// when words are not given). Fields are quoted as RFC 4180 says; numbers as the shortest text
// that reads back to the same float.
#include <ostream>

#include "core/engine/events_json.h"

namespace glance {

void WriteAttentionCsv(std::ostream& out, const AttentionExport& attention);

}  // namespace glance
