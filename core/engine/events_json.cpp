#include "core/engine/events_json.h"

#include <algorithm>

#include "core/util/error.h"
#include "core/util/json_field.h"

namespace glance {

using nlohmann::json;

json ToJson(const ImageInfo& v) {
  return {{"path", v.path}, {"sha256", v.sha256}, {"source_w", v.source_w}, {"source_h", v.source_h},
          {"resized_w", v.resized_w}, {"resized_h", v.resized_h}, {"grid_w", v.grid_w},
          {"grid_h", v.grid_h}, {"tokens", v.tokens()}, {"mode", Name(v.mode)}};
}

ImageInfo ImageInfoFromJson(const json& j) {
  ImageInfo v;
  v.path = RequiredField<std::string>(j, "path", "image JSON");
  v.sha256 = RequiredField<std::string>(j, "sha256", "image JSON");
  v.source_w = RequiredField<int>(j, "source_w", "image JSON");
  v.source_h = RequiredField<int>(j, "source_h", "image JSON");
  v.resized_w = RequiredField<int>(j, "resized_w", "image JSON");
  v.resized_h = RequiredField<int>(j, "resized_h", "image JSON");
  v.grid_w = RequiredField<int>(j, "grid_w", "image JSON");
  v.grid_h = RequiredField<int>(j, "grid_h", "image JSON");
  const std::string mode = RequiredField<std::string>(j, "mode", "image JSON");
  const auto parsed = ParseImageMode(mode);
  if (!parsed) throw Error("image JSON field 'mode' is '" + mode + "', not one of " + ImageModeNames());
  v.mode = *parsed;
  return v;
}

json ToJson(const AttentionMap& v) {
  json j = {{"step", v.step}, {"token_id", v.token_id}, {"token_text", v.token_text},
            {"image_index", v.image_index}, {"grid_h", v.grid_h}, {"grid_w", v.grid_w},
            {"layers", v.layers}, {"n_heads", v.n_heads}, {"weights", v.weights}, {"mean", v.mean}};
  if (!v.linear_layers.empty()) {  // DeltaNet hidden attention: only when captured
    j["linear_layers"] = v.linear_layers;
    j["linear_heads"] = v.linear_heads;
    j["linear_weights"] = v.linear_weights;
  }
  // The layer × head shares (image, text, sink per layer and head): only when captured.
  if (!v.shares.empty()) j["shares"] = v.shares;
  if (!v.linear_shares.empty()) j["linear_shares"] = v.linear_shares;
  return j;
}

AttentionMap AttentionMapFromJson(const json& j) {
  AttentionMap v;
  v.step = RequiredField<int>(j, "step", "attention map JSON");
  v.token_id = RequiredField<int32_t>(j, "token_id", "attention map JSON");
  // "text": the key of attention exports written before the schema was one.
  v.token_text = RequiredField<std::string>(j, HasField(j, "token_text") || !HasField(j, "text") ? "token_text" : "text",
                                            "attention map JSON");
  v.image_index = RequiredField<int>(j, "image_index", "attention map JSON");
  v.grid_h = RequiredField<int>(j, "grid_h", "attention map JSON");
  v.grid_w = RequiredField<int>(j, "grid_w", "attention map JSON");
  v.layers = RequiredField<std::vector<int>>(j, "layers", "attention map JSON");
  v.n_heads = RequiredField<int>(j, "n_heads", "attention map JSON");
  v.weights = RequiredField<std::vector<float>>(j, "weights", "attention map JSON");
  v.mean = RequiredField<std::vector<float>>(j, "mean", "attention map JSON");
  const size_t cells = static_cast<size_t>(v.grid_h) * static_cast<size_t>(v.grid_w);
  // No weights: a mean-only map (a saved chat kept at the "mean" detail level).
  if (v.mean.size() != cells ||
      (!v.weights.empty() && v.weights.size() != cells * v.layers.size() * static_cast<size_t>(v.n_heads)))
    throw Error("attention map JSON: sizes do not match its grid, layers and heads");
  v.linear_layers = OptionalField<std::vector<int>>(j, "linear_layers", {}, "attention map JSON");
  v.linear_heads = OptionalField<int>(j, "linear_heads", 0, "attention map JSON");
  v.linear_weights = OptionalField<std::vector<float>>(j, "linear_weights", {}, "attention map JSON");
  if (v.linear_weights.size() != cells * v.linear_layers.size() * static_cast<size_t>(std::max(v.linear_heads, 0)))
    throw Error("attention map JSON: 'linear_weights' does not match its grid, linear_layers and linear_heads");
  v.shares = OptionalField<std::vector<float>>(j, "shares", {}, "attention map JSON");
  v.linear_shares = OptionalField<std::vector<float>>(j, "linear_shares", {}, "attention map JSON");
  if (!v.shares.empty() && v.shares.size() != 3 * v.layers.size() * static_cast<size_t>(std::max(v.n_heads, 0)))
    throw Error("attention map JSON: 'shares' is not 3 values per layer and head");
  if (!v.linear_shares.empty() &&
      v.linear_shares.size() != 3 * v.linear_layers.size() * static_cast<size_t>(std::max(v.linear_heads, 0)))
    throw Error("attention map JSON: 'linear_shares' is not 3 values per DeltaNet layer and head");
  return v;
}

json ToJson(const AttentionWord& v) {
  return {{"text", v.text}, {"first_step", v.first_step}, {"last_step", v.last_step}};
}

AttentionWord AttentionWordFromJson(const json& j) {
  return {RequiredField<std::string>(j, "text", "word JSON"), RequiredField<int>(j, "first_step", "word JSON"),
          RequiredField<int>(j, "last_step", "word JSON")};
}

json ToJson(const AttentionExport& v) {
  json j = json::object();
  if (!v.model.empty()) j["model"] = v.model;
  if (!v.precision.empty()) j["precision"] = v.precision;
  if (!v.maps.empty()) {
    j["grid_h"] = v.maps.front().grid_h;
    j["grid_w"] = v.maps.front().grid_w;
    j["layers"] = v.maps.front().layers;
    j["n_heads"] = v.maps.front().n_heads;
  }
  json tokens = json::array(), words = json::array();
  for (const AttentionMap& m : v.maps) {
    json t = ToJson(m);
    if (m.mean.empty()) t["mean"] = m.Select(-1, -1);  // maps built without their mean
    tokens.push_back(std::move(t));
  }
  for (const AttentionWord& w : v.words) words.push_back(ToJson(w));
  j["tokens"] = std::move(tokens);
  j["words"] = std::move(words);
  return j;
}

AttentionExport AttentionExportFromJson(const json& j) {
  AttentionExport v;
  v.model = OptionalField<std::string>(j, "model", "", "attention export JSON");
  v.precision = OptionalField<std::string>(j, "precision", "", "attention export JSON");
  const json tokens = RequiredField<json>(j, "tokens", "attention export JSON");
  const json words = RequiredField<json>(j, "words", "attention export JSON");
  if (!tokens.is_array() || !words.is_array())
    throw Error("attention export JSON: 'tokens' and 'words' must be arrays");
  for (const json& t : tokens) {
    if (t.is_object() && (!t.contains("layers") || !t.contains("n_heads"))) {  // an earlier export
      json full = t;
      if (!full.contains("layers")) full["layers"] = RequiredField<json>(j, "layers", "attention export JSON");
      if (!full.contains("n_heads")) full["n_heads"] = RequiredField<json>(j, "n_heads", "attention export JSON");
      v.maps.push_back(AttentionMapFromJson(full));
    } else {
      v.maps.push_back(AttentionMapFromJson(t));
    }
  }
  for (const json& w : words) v.words.push_back(AttentionWordFromJson(w));
  return v;
}

json ToJson(const StageTime& v) { return {{"name", v.name}, {"seconds", v.seconds}, {"calls", v.calls}}; }

json ToJson(const TurnStats& v) {
  json stages = json::array();
  for (const auto& s : v.stages) stages.push_back(ToJson(s));
  json j = {{"image_tokens", v.image_tokens}, {"prompt_tokens", v.prompt_tokens},
          {"context_tokens", v.context_tokens}, {"generated_tokens", v.generated_tokens},
          {"prefill_s", v.prefill_s}, {"prefill_tokens_per_s", v.prefill_tokens_per_s},
          {"ttft_s", v.ttft_s}, {"decode_s", v.decode_s},
          {"decode_tokens_per_s", v.decode_tokens_per_s}, {"total_s", v.total_s},
          {"backend", v.backend}, {"backend_reason", v.backend_reason},
          {"precision", Name(v.precision)}, {"threads", v.threads},
          {"stages", stages}, {"token_latencies_s", v.token_latencies_s}};
  if (v.seed) j["seed"] = *v.seed;
  if (v.draft_tokens > 0)  // speculative decoding was on for this turn
    j["speculative"] = {{"draft_tokens", v.draft_tokens}, {"drafted", v.drafted}, {"accepted", v.accepted},
                        {"weight_passes", v.weight_passes}};
  return j;
}

TurnStats TurnStatsFromJson(const json& j) {
  TurnStats v;
  const char* w = "stats JSON";
  v.image_tokens = RequiredField<int>(j, "image_tokens", w);
  v.prompt_tokens = RequiredField<int>(j, "prompt_tokens", w);
  v.context_tokens = RequiredField<int>(j, "context_tokens", w);
  v.generated_tokens = RequiredField<int>(j, "generated_tokens", w);
  v.prefill_s = RequiredField<double>(j, "prefill_s", w);
  v.prefill_tokens_per_s = RequiredField<double>(j, "prefill_tokens_per_s", w);
  v.ttft_s = RequiredField<double>(j, "ttft_s", w);
  v.decode_s = RequiredField<double>(j, "decode_s", w);
  v.decode_tokens_per_s = RequiredField<double>(j, "decode_tokens_per_s", w);
  v.total_s = RequiredField<double>(j, "total_s", w);
  v.backend = RequiredField<std::string>(j, "backend", w);
  v.backend_reason = RequiredField<std::string>(j, "backend_reason", w);
  v.threads = RequiredField<int>(j, "threads", w);
  // Turns saved before precision and seed were recorded ran f32 (the GUI's only precision then).
  if (HasField(j, "precision")) {
    const std::string name = RequiredField<std::string>(j, "precision", w);
    const auto parsed = ParsePrecision(name);
    if (!parsed || *parsed == Precision::kAuto)
      throw Error("stats JSON field 'precision' is '" + name + "', not a weight precision");
    v.precision = *parsed;
  }
  if (HasField(j, "seed")) v.seed = RequiredField<uint64_t>(j, "seed", w);
  if (HasField(j, "speculative")) {
    const json& sp = RequiredField<json>(j, "speculative", w);
    const char* ws = "stats JSON 'speculative'";
    v.draft_tokens = RequiredField<int>(sp, "draft_tokens", ws);
    v.drafted = RequiredField<int>(sp, "drafted", ws);
    v.accepted = RequiredField<int>(sp, "accepted", ws);
    v.weight_passes = RequiredField<int>(sp, "weight_passes", ws);
    if (v.draft_tokens <= 0 || v.accepted < 0 || v.accepted > v.drafted || v.weight_passes < 0)
      throw Error("stats JSON field 'speculative' has inconsistent counts");
  }
  for (const auto& s : RequiredField<json>(j, "stages", w))
    v.stages.push_back({RequiredField<std::string>(s, "name", "stage JSON"), RequiredField<double>(s, "seconds", "stage JSON"),
                        RequiredField<int64_t>(s, "calls", "stage JSON")});
  v.token_latencies_s = RequiredField<std::vector<double>>(j, "token_latencies_s", w);
  return v;
}

}  // namespace glance
