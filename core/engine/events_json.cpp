#include "core/engine/events_json.h"

#include "core/util/error.h"

namespace glance {

using nlohmann::json;

template <typename T>
static T Field(const json& j, const char* key, const char* what) {
  if (!j.is_object() || !j.contains(key)) throw Error(std::string(what) + " JSON lacks '" + key + "'");
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    throw Error(std::string(what) + " JSON field '" + key + "' has the wrong type");
  }
}

json ToJson(const ImageInfo& v) {
  return {{"path", v.path}, {"sha256", v.sha256}, {"source_w", v.source_w}, {"source_h", v.source_h},
          {"resized_w", v.resized_w}, {"resized_h", v.resized_h}, {"grid_w", v.grid_w},
          {"grid_h", v.grid_h}, {"tokens", v.tokens()}, {"mode", Name(v.mode)}};
}

ImageInfo ImageInfoFromJson(const json& j) {
  ImageInfo v;
  v.path = Field<std::string>(j, "path", "image");
  v.sha256 = Field<std::string>(j, "sha256", "image");
  v.source_w = Field<int>(j, "source_w", "image");
  v.source_h = Field<int>(j, "source_h", "image");
  v.resized_w = Field<int>(j, "resized_w", "image");
  v.resized_h = Field<int>(j, "resized_h", "image");
  v.grid_w = Field<int>(j, "grid_w", "image");
  v.grid_h = Field<int>(j, "grid_h", "image");
  const std::string mode = Field<std::string>(j, "mode", "image");
  const auto parsed = ParseImageMode(mode);
  if (!parsed) throw Error("image JSON field 'mode' is '" + mode + "', not one of " + ImageModeNames());
  v.mode = *parsed;
  return v;
}

json ToJson(const AttentionMap& v) {
  return {{"step", v.step}, {"token_id", v.token_id}, {"token_text", v.token_text},
          {"image_index", v.image_index}, {"grid_h", v.grid_h}, {"grid_w", v.grid_w},
          {"layers", v.layers}, {"n_heads", v.n_heads}, {"weights", v.weights}, {"mean", v.mean}};
}

AttentionMap AttentionMapFromJson(const json& j) {
  AttentionMap v;
  v.step = Field<int>(j, "step", "attention map");
  v.token_id = Field<int32_t>(j, "token_id", "attention map");
  v.token_text = Field<std::string>(j, "token_text", "attention map");
  v.image_index = Field<int>(j, "image_index", "attention map");
  v.grid_h = Field<int>(j, "grid_h", "attention map");
  v.grid_w = Field<int>(j, "grid_w", "attention map");
  v.layers = Field<std::vector<int>>(j, "layers", "attention map");
  v.n_heads = Field<int>(j, "n_heads", "attention map");
  v.weights = Field<std::vector<float>>(j, "weights", "attention map");
  v.mean = Field<std::vector<float>>(j, "mean", "attention map");
  const size_t cells = static_cast<size_t>(v.grid_h) * static_cast<size_t>(v.grid_w);
  if (v.mean.size() != cells || v.weights.size() != cells * v.layers.size() * static_cast<size_t>(v.n_heads))
    throw Error("attention map JSON: sizes do not match its grid, layers and heads");
  return v;
}

json ToJson(const AttentionWord& v) {
  return {{"text", v.text}, {"first_step", v.first_step}, {"last_step", v.last_step}};
}

AttentionWord AttentionWordFromJson(const json& j) {
  return {Field<std::string>(j, "text", "word"), Field<int>(j, "first_step", "word"),
          Field<int>(j, "last_step", "word")};
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
  return j;
}

TurnStats TurnStatsFromJson(const json& j) {
  TurnStats v;
  const char* w = "stats";
  v.image_tokens = Field<int>(j, "image_tokens", w);
  v.prompt_tokens = Field<int>(j, "prompt_tokens", w);
  v.context_tokens = Field<int>(j, "context_tokens", w);
  v.generated_tokens = Field<int>(j, "generated_tokens", w);
  v.prefill_s = Field<double>(j, "prefill_s", w);
  v.prefill_tokens_per_s = Field<double>(j, "prefill_tokens_per_s", w);
  v.ttft_s = Field<double>(j, "ttft_s", w);
  v.decode_s = Field<double>(j, "decode_s", w);
  v.decode_tokens_per_s = Field<double>(j, "decode_tokens_per_s", w);
  v.total_s = Field<double>(j, "total_s", w);
  v.backend = Field<std::string>(j, "backend", w);
  v.backend_reason = Field<std::string>(j, "backend_reason", w);
  v.threads = Field<int>(j, "threads", w);
  // Turns saved before precision and seed were recorded ran f32 (the GUI's only precision then).
  if (j.contains("precision")) {
    const std::string name = Field<std::string>(j, "precision", w);
    const auto parsed = ParsePrecision(name);
    if (!parsed || *parsed == Precision::kAuto)
      throw Error("stats JSON field 'precision' is '" + name + "', not a weight precision");
    v.precision = *parsed;
  }
  if (j.contains("seed")) v.seed = Field<uint64_t>(j, "seed", w);
  for (const auto& s : Field<json>(j, "stages", w))
    v.stages.push_back({Field<std::string>(s, "name", "stage"), Field<double>(s, "seconds", "stage"),
                        Field<int64_t>(s, "calls", "stage")});
  v.token_latencies_s = Field<std::vector<double>>(j, "token_latencies_s", w);
  return v;
}

}  // namespace glance
