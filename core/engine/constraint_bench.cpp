#include "core/engine/constraint_bench.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "core/engine/json_constraint.h"
#include "core/text/json_grammar.h"
#include "core/text/tokenizer.h"
#include "core/util/error.h"

namespace glance {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Typical answers: a caption as any JSON object, and an answer to the 10-property schema below.
const char* kObjectAnswer =
    R"({"caption": "A large blue star in the bottom left corner on a green and yellow background.", "objects": [{"shape": "star", "colour": "blue", "where": "bottom left", "size": "large"}], "count": 1, "background": ["green", "yellow"], "confidence": 0.93, "uncertain": false, "notes": null})";
const char* kSchema10 = R"({"type": "object", "properties": {
  "caption": {"type": "string"}, "count": {"type": "integer"}, "confidence": {"type": "number"},
  "has_text": {"type": "boolean"}, "style": {"enum": ["photo", "drawing", "diagram", "screenshot"]},
  "main_colour": {"type": "string"}, "objects": {"type": "array", "items": {"type": "string"}, "maxItems": 8},
  "where": {"type": "object", "properties": {"row": {"enum": ["top", "middle", "bottom"]}, "column": {"enum": ["left", "centre", "right"]}},
            "required": ["row", "column"], "additionalProperties": false},
  "background": {"type": ["string", "null"]}, "people": {"type": "integer"}},
  "required": ["caption", "count", "confidence", "has_text", "style", "main_colour", "objects", "where", "background", "people"],
  "additionalProperties": false})";
const char* kSchema10Answer =
    R"({"caption": "A large blue star in the bottom left corner.", "count": 1, "confidence": 0.91, "has_text": false, "style": "drawing", "main_colour": "blue", "objects": ["star"], "where": {"row": "bottom", "column": "left"}, "background": "green and yellow", "people": 0})";

// Seconds per token of MaskLogits + Accept over `ids`, twice: (cold, warm).
std::pair<double, double> StepTimes(const JsonConstraintSpec& spec, const std::vector<int32_t>& ids,
                                    const std::vector<int32_t>& stops, int64_t width) {
  std::vector<float> row(static_cast<size_t>(width), 0.0f);
  double times[2] = {0.0, 0.0};
  for (double& t : times) {
    const auto c = spec.Start(stops);
    const auto t0 = Clock::now();
    for (int32_t id : ids) {
      c->MaskLogits(row);
      c->Accept(id);
    }
    c->MaskLogits(row);  // the step that allows the stop token
    t = Since(t0) / static_cast<double>(ids.size() + 1);
  }
  return {times[0], times[1]};
}

}  // namespace

ConstraintOverhead MeasureConstraintOverhead(const Tokenizer& tok, const std::vector<int32_t>& stop_ids,
                                             int64_t logits_width, int reps) {
  ConstraintOverhead r;
  r.vocab_tokens = static_cast<int64_t>(tok.size());
  r.logits_width = std::max<int64_t>(logits_width, r.vocab_tokens);
  const std::vector<int32_t> object_ids = tok.Encode(kObjectAnswer), schema_ids = tok.Encode(kSchema10Answer);
  r.json_object_tokens = static_cast<int>(object_ids.size());
  r.schema_10_tokens = static_cast<int>(schema_ids.size());
  const double inf = 1e30;
  r.vocab_index_s = r.compile_10_property_s = inf;
  r.json_object_step_cold_s = r.json_object_step_warm_s = r.schema_10_step_cold_s = r.schema_10_step_warm_s = inf;
  for (int i = 0; i < std::max(reps, 1); ++i) {
    JsonConstraintCache cache(tok);
    auto t0 = Clock::now();
    cache.vocab();
    r.vocab_index_s = std::min(r.vocab_index_s, Since(t0));
    t0 = Clock::now();
    const auto schema = cache.ForSchemaText(kSchema10, "the bench's 10-property schema");
    r.compile_10_property_s = std::min(r.compile_10_property_s, Since(t0));
    const auto [oc, ow] = StepTimes(*cache.AnyObject(), object_ids, stop_ids, r.logits_width);
    const auto [sc, sw] = StepTimes(*schema, schema_ids, stop_ids, r.logits_width);
    r.json_object_step_cold_s = std::min(r.json_object_step_cold_s, oc);
    r.json_object_step_warm_s = std::min(r.json_object_step_warm_s, ow);
    r.schema_10_step_cold_s = std::min(r.schema_10_step_cold_s, sc);
    r.schema_10_step_warm_s = std::min(r.schema_10_step_warm_s, sw);
  }
  return r;
}

}  // namespace glance
