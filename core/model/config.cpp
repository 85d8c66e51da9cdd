// config.json -> ModelConfig. Field names, defaults and the derivation rules follow
// HF `configuration_qwen3_5.py` as summarised in qwen35.md §1.1-1.3.
#include "core/model/config.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/util/error.h"
#include "core/util/json_field.h"
#include "core/util/read_file.h"

namespace glance {

using nlohmann::json;

namespace {

constexpr const char* kArchitecture = "Qwen3_5ForConditionalGeneration";
constexpr const char* kModelType = "qwen3_5";
// Far above any released Qwen3.5 (the largest has 60 text layers and 27 vision blocks).
constexpr int64_t kMaxLayers = 1024;
constexpr int64_t kMaxPositionEmbeddings = int64_t{4096} * 4096;
// Plausibility bounds for config numbers, each far above any real checkpoint (Qwen3.5: vocab
// 248320, hidden <= 8192, context 262144, heads <= 64, head_dim 256); they keep products of
// config numbers inside int64 before the weights are there to check them against.
constexpr int64_t kMaxSmallCount = int64_t{1} << 16;
constexpr int64_t kMaxSize = int64_t{1} << 26;

// Reads typed fields of one JSON object; every message names the file and the dotted field path.
class FieldReader {
 public:
  FieldReader(const json& obj, std::string origin, std::string prefix)
      : obj_(obj), origin_(std::move(origin)), prefix_(std::move(prefix)) {}

  std::string Path(const std::string& key) const { return prefix_.empty() ? key : prefix_ + "." + key; }
  Error Fail(const std::string& key, const std::string& what) const {
    return Error(origin_ + ": field '" + Path(key) + "' " + what);
  }
  // Present and not null (HF writes `null` for unset optional ids).
  bool Has(const std::string& key) const { return HasField(obj_, key.c_str()); }
  const json& Raw(const std::string& key) const { return obj_.at(key); }

  int64_t Int(const std::string& key, int64_t fallback) const {
    if (!Has(key)) return fallback;
    return IntValue(key, obj_.at(key));
  }
  int64_t IntValue(const std::string& key, const json& v) const {
    // HF sometimes writes integral floats (e.g. 10000000.0); accept those, refuse 1.5.
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_number_float()) {
      // Range first: casting a double outside int64_t (1e300, inf) to an integer is undefined.
      const double d = v.get<double>();
      if (d >= -0x1p63 && d < 0x1p63 && d == std::trunc(d)) return static_cast<int64_t>(d);
    }
    throw Fail(key, "must be an integer, found " + v.dump());
  }
  // Small counts (heads, head dims, patch sizes): the bound keeps every product of a few of
  // them (heads x head_dim, hidden x merge^2, ...) far from integer overflow.
  int PositiveInt(const std::string& key, int64_t fallback) const {
    const int64_t v = Int(key, fallback);
    if (v <= 0 || v > kMaxSmallCount)
      throw Fail(key, "must be a positive integer at most " + std::to_string(kMaxSmallCount) + ", found " + std::to_string(v));
    return static_cast<int>(v);
  }
  // A count that sizes per-layer tables while parsing; the weights are checked to hold that
  // many layers (config_check.h) before anything larger is built from it.
  int LayerCount(const std::string& key, int64_t fallback) const {
    const int64_t v = Int(key, fallback);
    if (v <= 0 || v > kMaxLayers)
      throw Fail(key, "must be between 1 and " + std::to_string(kMaxLayers) + ", found " + std::to_string(v));
    return static_cast<int>(v);
  }
  // Sizes (vocab, hidden, intermediate, context length).
  int64_t PositiveInt64(const std::string& key, int64_t fallback) const {
    const int64_t v = Int(key, fallback);
    if (v <= 0 || v > kMaxSize)
      throw Fail(key, "must be a positive integer at most " + std::to_string(kMaxSize) + ", found " + std::to_string(v));
    return v;
  }
  double Number(const std::string& key, double fallback) const {
    if (!Has(key)) return fallback;
    const json& v = obj_.at(key);
    if (!v.is_number()) throw Fail(key, "must be a number, found " + v.dump());
    return v.get<double>();
  }
  double PositiveNumber(const std::string& key, double fallback) const {
    const double v = Number(key, fallback);
    if (!(v > 0.0)) throw Fail(key, "must be a positive number, found " + std::to_string(v));
    return v;
  }
  bool Bool(const std::string& key, bool fallback) const {
    if (!Has(key)) return fallback;
    const json& v = obj_.at(key);
    if (!v.is_boolean()) throw Fail(key, "must be true or false, found " + v.dump());
    return v.get<bool>();
  }
  std::string String(const std::string& key, const std::string& fallback) const {
    if (!Has(key)) return fallback;
    const json& v = obj_.at(key);
    if (!v.is_string()) throw Fail(key, "must be a string, found " + v.dump());
    return v.get<std::string>();
  }
  // A nested object, or an empty one when absent.
  FieldReader Object(const std::string& key, const json& empty) const {
    if (!Has(key)) return FieldReader(empty, origin_, Path(key));
    const json& v = obj_.at(key);
    if (!v.is_object()) throw Fail(key, "must be an object, found " + v.dump());
    return FieldReader(v, origin_, Path(key));
  }
  const std::string& origin() const { return origin_; }

 private:
  const json& obj_;
  std::string origin_;
  std::string prefix_;
};

const json& EmptyObject() {
  static const json kEmpty = json::object();
  return kEmpty;
}

// Reads a rope field from the rope params object if it is there, else from the text_config
// level (checkpoints put partial_rotary_factor / mrope_* at either place; HF's
// standardize_rope_params moves them into rope_parameters).
const FieldReader& RopeFieldSource(const FieldReader& rope, const FieldReader& text, const std::string& key) {
  return rope.Has(key) ? rope : text;
}

void ParseRope(const FieldReader& tc, const FieldReader& top, TextConfig& t) {
  // New form: text_config.rope_parameters {rope_type, rope_theta, ...}.
  // Old form: text_config.rope_scaling {type/rope_type, mrope_section, ...} + rope_theta at the
  // text_config (or top) level.
  const bool has_params = tc.Has("rope_parameters");
  const FieldReader rope = tc.Object(has_params ? "rope_parameters" : "rope_scaling", EmptyObject());
  const std::string rope_type = rope.Has("rope_type") ? rope.String("rope_type", "default")
                                                      : rope.String("type", "default");
  // "mrope" is what older Qwen2-VL style configs wrote for the same default frequencies.
  if (rope_type != "default" && rope_type != "mrope")
    throw rope.Fail("rope_type", "is \"" + rope_type + "\"; Glance supports only the default (M-)RoPE");

  if (rope.Has("rope_theta")) t.rope_theta = rope.PositiveNumber("rope_theta", t.rope_theta);
  else if (tc.Has("rope_theta")) t.rope_theta = tc.PositiveNumber("rope_theta", t.rope_theta);
  else t.rope_theta = top.PositiveNumber("rope_theta", t.rope_theta);

  t.partial_rotary_factor =
      RopeFieldSource(rope, tc, "partial_rotary_factor").Number("partial_rotary_factor", t.partial_rotary_factor);
  if (!(t.partial_rotary_factor > 0.0 && t.partial_rotary_factor <= 1.0))
    throw RopeFieldSource(rope, tc, "partial_rotary_factor")
        .Fail("partial_rotary_factor", "must be in (0, 1], found " + std::to_string(t.partial_rotary_factor));
  t.mrope_interleaved = RopeFieldSource(rope, tc, "mrope_interleaved").Bool("mrope_interleaved", t.mrope_interleaved);

  const FieldReader& sec_src = RopeFieldSource(rope, tc, "mrope_section");
  if (sec_src.Has("mrope_section")) {
    const json& s = sec_src.Raw("mrope_section");
    if (!s.is_array() || s.size() != 3)
      throw sec_src.Fail("mrope_section", "must be a list of 3 integers (t, h, w), found " + s.dump());
    for (size_t i = 0; i < 3; ++i) {
      const int64_t v = sec_src.IntValue("mrope_section", s[i]);
      if (v < 0) throw sec_src.Fail("mrope_section", "has a negative entry " + s.dump());
      t.mrope_section[i] = static_cast<int>(v);
    }
  }
  const int rotary = t.rotary_dim();
  if (rotary <= 0 || rotary % 2 != 0)
    throw tc.Fail("partial_rotary_factor", "gives rotary dim " + std::to_string(rotary) +
                                               " (head_dim " + std::to_string(t.head_dim) + "); it must be even and positive");
  const int sec_sum = t.mrope_section[0] + t.mrope_section[1] + t.mrope_section[2];
  if (sec_sum != rotary / 2)
    throw sec_src.Fail("mrope_section", "sums to " + std::to_string(sec_sum) + " but the rotary dim " +
                                            std::to_string(rotary) + " has " + std::to_string(rotary / 2) +
                                            " frequencies");
}

void ParseLayerTypes(const FieldReader& tc, TextConfig& t) {
  t.layer_types.clear();
  if (tc.Has("layer_types")) {
    const json& lt = tc.Raw("layer_types");
    if (!lt.is_array()) throw tc.Fail("layer_types", "must be a list of strings");
    if (static_cast<int64_t>(lt.size()) != t.num_hidden_layers)
      throw tc.Fail("layer_types", "has " + std::to_string(lt.size()) + " entries but num_hidden_layers is " +
                                       std::to_string(t.num_hidden_layers));
    for (size_t i = 0; i < lt.size(); ++i) {
      const json& e = lt[i];
      if (e == "linear_attention") t.layer_types.push_back(LayerType::kLinearAttention);
      else if (e == "full_attention") t.layer_types.push_back(LayerType::kFullAttention);
      else
        throw tc.Fail("layer_types", "entry " + std::to_string(i) + " is " + e.dump() +
                                         "; expected \"linear_attention\" or \"full_attention\"");
    }
    return;
  }
  // HF Qwen3_5TextConfig: layer i is full attention iff (i + 1) % interval == 0.
  const int interval = tc.PositiveInt("full_attention_interval", 4);
  for (int i = 0; i < t.num_hidden_layers; ++i)
    t.layer_types.push_back((i + 1) % interval == 0 ? LayerType::kFullAttention : LayerType::kLinearAttention);
}

std::vector<int64_t> ParseEos(const FieldReader& r) {
  std::vector<int64_t> ids;
  if (!r.Has("eos_token_id")) return ids;
  const json& v = r.Raw("eos_token_id");
  if (v.is_array()) {
    for (const json& e : v) ids.push_back(r.IntValue("eos_token_id", e));
  } else {
    ids.push_back(r.IntValue("eos_token_id", v));
  }
  for (int64_t id : ids)
    if (id < 0) throw r.Fail("eos_token_id", "has a negative id " + std::to_string(id));
  return ids;
}

TextConfig ParseText(const FieldReader& tc, const FieldReader& top) {
  TextConfig t;
  const std::string mt = tc.String("model_type", "qwen3_5_text");
  if (mt != "qwen3_5_text" && mt != "qwen3_5")
    throw tc.Fail("model_type", "is \"" + mt + "\"; expected \"qwen3_5_text\"");
  t.vocab_size = tc.PositiveInt64("vocab_size", t.vocab_size);
  t.hidden_size = tc.PositiveInt64("hidden_size", t.hidden_size);
  t.intermediate_size = tc.PositiveInt64("intermediate_size", t.intermediate_size);
  t.num_hidden_layers = tc.LayerCount("num_hidden_layers", t.num_hidden_layers);
  t.num_attention_heads = tc.PositiveInt("num_attention_heads", t.num_attention_heads);
  t.num_key_value_heads = tc.PositiveInt("num_key_value_heads", t.num_key_value_heads);
  t.head_dim = tc.PositiveInt("head_dim", t.head_dim);
  t.rms_norm_eps = tc.PositiveNumber("rms_norm_eps", t.rms_norm_eps);
  // Tie flag: text_config wins when present, else the top level (HF reads both places).
  t.tie_word_embeddings =
      tc.Has("tie_word_embeddings") ? tc.Bool("tie_word_embeddings", false) : top.Bool("tie_word_embeddings", false);
  t.max_position_embeddings = tc.PositiveInt64("max_position_embeddings", t.max_position_embeddings);
  t.linear_conv_kernel_dim = tc.PositiveInt("linear_conv_kernel_dim", t.linear_conv_kernel_dim);
  t.linear_key_head_dim = tc.PositiveInt("linear_key_head_dim", t.linear_key_head_dim);
  t.linear_value_head_dim = tc.PositiveInt("linear_value_head_dim", t.linear_value_head_dim);
  t.linear_num_key_heads = tc.PositiveInt("linear_num_key_heads", t.linear_num_key_heads);
  t.linear_num_value_heads = tc.PositiveInt("linear_num_value_heads", t.linear_num_value_heads);

  const std::string act = tc.String("hidden_act", "silu");
  if (act != "silu") throw tc.Fail("hidden_act", "is \"" + act + "\"; Qwen3.5 uses \"silu\"");
  if (tc.Bool("attention_bias", false)) throw tc.Fail("attention_bias", "is true; Qwen3.5 attention has no bias");

  if (t.num_attention_heads % t.num_key_value_heads != 0)
    throw tc.Fail("num_key_value_heads", std::to_string(t.num_key_value_heads) + " does not divide num_attention_heads " +
                                             std::to_string(t.num_attention_heads));
  if (t.linear_num_value_heads % t.linear_num_key_heads != 0)
    throw tc.Fail("linear_num_key_heads", std::to_string(t.linear_num_key_heads) +
                                              " does not divide linear_num_value_heads " +
                                              std::to_string(t.linear_num_value_heads));
  ParseLayerTypes(tc, t);
  ParseRope(tc, top, t);
  t.eos_token_ids = ParseEos(tc);
  if (t.eos_token_ids.empty()) t.eos_token_ids = ParseEos(top);
  for (int64_t id : t.eos_token_ids)
    if (id >= t.vocab_size)
      throw tc.Fail("eos_token_id", "id " + std::to_string(id) + " is outside the vocabulary (" +
                                        std::to_string(t.vocab_size) + ")");
  return t;
}

VisionConfig ParseVision(const FieldReader& vc) {
  VisionConfig v;
  const std::string mt = vc.String("model_type", "qwen3_5_vision");
  // Older checkpoints wrote "qwen3_5" for the vision sub-config (qwen35.md §1.2).
  if (mt != "qwen3_5_vision" && mt != "qwen3_5")
    throw vc.Fail("model_type", "is \"" + mt + "\"; expected \"qwen3_5_vision\"");
  v.depth = vc.LayerCount("depth", v.depth);
  v.hidden_size = vc.PositiveInt64("hidden_size", v.hidden_size);
  v.intermediate_size = vc.PositiveInt64("intermediate_size", v.intermediate_size);
  v.num_heads = vc.PositiveInt("num_heads", v.num_heads);
  v.in_channels = vc.PositiveInt("in_channels", v.in_channels);
  v.patch_size = vc.PositiveInt("patch_size", v.patch_size);
  v.temporal_patch_size = vc.PositiveInt("temporal_patch_size", v.temporal_patch_size);
  v.spatial_merge_size = vc.PositiveInt("spatial_merge_size", v.spatial_merge_size);
  v.out_hidden_size = vc.PositiveInt64("out_hidden_size", v.out_hidden_size);
  v.num_position_embeddings = vc.PositiveInt64("num_position_embeddings", v.num_position_embeddings);
  // The table is a side x side grid (48 x 48 = 2304 in the released models); a side past 4096
  // is no real checkpoint, and the bound keeps side * side far from int64 overflow everywhere.
  if (v.num_position_embeddings > kMaxPositionEmbeddings)
    throw vc.Fail("num_position_embeddings", "is " + std::to_string(v.num_position_embeddings) + ", above " +
                                                 std::to_string(kMaxPositionEmbeddings) + " (a 4096 x 4096 grid)");
  v.hidden_act = vc.String("hidden_act", v.hidden_act);
  v.layer_norm_eps = vc.PositiveNumber("layer_norm_eps", v.layer_norm_eps);
  if (v.hidden_act != "gelu_pytorch_tanh" && v.hidden_act != "gelu" && v.hidden_act != "gelu_new")
    throw vc.Fail("hidden_act", "is \"" + v.hidden_act + "\"; expected \"gelu_pytorch_tanh\"");
  // HF-M: rope_parameters {rope_type: axial, rope_theta: 10000}; HF-M0 hard-codes 10000.
  const FieldReader rope = vc.Object("rope_parameters", EmptyObject());
  v.rope_theta = rope.PositiveNumber("rope_theta", v.rope_theta);

  if (v.hidden_size % v.num_heads != 0)
    throw vc.Fail("num_heads", std::to_string(v.num_heads) + " does not divide hidden_size " +
                                   std::to_string(v.hidden_size));
  if (v.head_dim() % 4 != 0)
    throw vc.Fail("num_heads", "gives head_dim " + std::to_string(v.head_dim()) +
                                   "; the 2-D vision RoPE needs a multiple of 4");
  // The learned position table is a square grid (48x48 = 2304) that is resampled bilinearly.
  // Integer square root without overflow: side * side <= n  <=>  side <= n / side.
  const int64_t n = v.num_position_embeddings;
  auto fits = [n](int64_t s) { return s <= n / s; };
  int64_t side = std::max<int64_t>(1, static_cast<int64_t>(std::sqrt(static_cast<double>(n))));
  while (side > 1 && !fits(side)) --side;
  while (fits(side + 1)) ++side;
  if (side * side != n)
    throw vc.Fail("num_position_embeddings", std::to_string(v.num_position_embeddings) +
                                                 " is not a square number (the table is a square grid)");
  return v;
}

std::string DescribeArchitecture(const json& j) {
  std::string arch = "an unknown architecture";
  if (j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty() &&
      j["architectures"][0].is_string())
    arch = j["architectures"][0].get<std::string>();
  std::string mt = j.contains("model_type") && j["model_type"].is_string() ? j["model_type"].get<std::string>()
                                                                           : std::string("missing");
  return arch + " (model_type " + mt + ")";
}

}  // namespace

ModelConfig ModelConfig::FromJsonText(const std::string& json_text, const std::string& origin) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::exception& e) {
    throw Error(origin + " is not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object()) throw Error(origin + " is not a JSON object");

  const std::string model_type =
      j.contains("model_type") && j["model_type"].is_string() ? j["model_type"].get<std::string>() : "";
  bool arch_ok = true;
  if (j.contains("architectures")) {
    const json& a = j["architectures"];
    arch_ok = a.is_array() && !a.empty() && a[0] == kArchitecture;
  }
  if (model_type != kModelType || !arch_ok)
    throw Error(origin + " describes " + DescribeArchitecture(j) + "; Glance runs " + kArchitecture +
                " (model_type " + kModelType + ")");

  const FieldReader top(j, origin, "");
  if (!top.Has("text_config")) throw top.Fail("text_config", "is missing (required for " + std::string(kArchitecture) + ")");
  if (!top.Has("vision_config")) throw top.Fail("vision_config", "is missing (required for " + std::string(kArchitecture) + ")");

  ModelConfig c;
  c.model_type = model_type;
  c.text = ParseText(top.Object("text_config", EmptyObject()), top);
  c.vision = ParseVision(top.Object("vision_config", EmptyObject()));
  c.image_token_id = top.Int("image_token_id", c.image_token_id);
  c.video_token_id = top.Int("video_token_id", c.video_token_id);
  c.vision_start_token_id = top.Int("vision_start_token_id", c.vision_start_token_id);
  c.vision_end_token_id = top.Int("vision_end_token_id", c.vision_end_token_id);
  for (const char* key : {"image_token_id", "video_token_id", "vision_start_token_id", "vision_end_token_id"}) {
    const int64_t id = top.Int(key, 0);
    if (top.Has(key) && (id < 0 || id >= c.text.vocab_size))
      throw top.Fail(key, "id " + std::to_string(id) + " is outside the vocabulary (" +
                              std::to_string(c.text.vocab_size) + ")");
  }
  if (c.image_token_id < 0 || c.image_token_id >= c.text.vocab_size)
    throw top.Fail("image_token_id", "default " + std::to_string(c.image_token_id) +
                                         " is outside the vocabulary (" + std::to_string(c.text.vocab_size) +
                                         "); set it in config.json");
  return c;
}

ModelConfig ModelConfig::FromFile(const std::string& config_json_path) {
  return FromJsonText(
      ReadWholeFile(config_json_path, "cannot read " + config_json_path + " (missing or unreadable)"),
      config_json_path);
}

}  // namespace glance
