#pragma once
// glance-cli bench's constrained_decode_overhead (issue 29): what constrained decoding adds to
// a decode step. The added work per token is the constraint's MaskLogits (the token mask over
// the vocabulary and -inf over the logits row the model produced: out.vocab entries) and Accept;
// it is timed directly, on the token sequence the engine's tokenizer makes of a typical answer,
// rather than as the difference of two noisy decode timings. Cold: a freshly compiled schema
// (every mask computed); warm: the same answer again (masks from the cache, as recurring states
// are in a long answer). Also the schema's compile time and the vocabulary index's build time.
#include <cstdint>
#include <vector>

namespace glance {

class Tokenizer;

struct ConstraintOverhead {
  int64_t vocab_tokens = 0;     // the tokenizer's ids the mask covers
  int64_t logits_width = 0;     // the logits row masked (the model's padded vocabulary)
  double vocab_index_s = 0.0;   // TokenVocabulary, once per tokenizer
  double compile_10_property_s = 0.0;  // schema text -> grammar -> spec (no masks yet)
  double json_object_step_cold_s = 0.0, json_object_step_warm_s = 0.0;  // per token
  double schema_10_step_cold_s = 0.0, schema_10_step_warm_s = 0.0;
  int json_object_tokens = 0, schema_10_tokens = 0;  // tokens of each answer
};

// Best of `reps` for each figure, over `tok`'s vocabulary with logits rows `logits_width` wide
// (the model's padded vocabulary; at least tok.size()).
ConstraintOverhead MeasureConstraintOverhead(const Tokenizer& tok, const std::vector<int32_t>& stop_ids,
                                             int64_t logits_width, int reps);

}  // namespace glance
