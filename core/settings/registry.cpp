#include "core/settings/registry.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include "core/engine/stop_scanner.h"
#include "core/util/error.h"

namespace glance::settings {
namespace {

// Shortest string that reads back as the same float ("0.9", not "0.899999976").
std::string FormatFloat(float v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}
std::string FormatDouble(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, res.ptr);
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::optional<bool> ParseBool(std::string_view v) {
  if (v == "true" || v == "1" || v == "on" || v == "yes") return true;
  if (v == "false" || v == "0" || v == "off" || v == "no") return false;
  return std::nullopt;
}

std::optional<int64_t> ParseInt(std::string_view v) {
  int64_t n = 0;
  const char* end = v.data() + v.size();
  auto res = std::from_chars(v.data(), end, n);
  if (v.empty() || res.ec != std::errc() || res.ptr != end) return std::nullopt;
  return n;
}

std::optional<double> ParseDouble(std::string_view v) {
  double d = 0;
  const char* end = v.data() + v.size();
  auto res = std::from_chars(v.data(), end, d);
  if (v.empty() || res.ec != std::errc() || res.ptr != end || !std::isfinite(d)) return std::nullopt;
  return d;
}

Key Bool(std::string name, bool def, std::string label, std::string help, std::string flag,
         std::string group) {
  Key k;
  k.name = std::move(name);
  k.type = Type::kBool;
  k.default_value = def ? "true" : "false";
  k.label = std::move(label);
  k.help = std::move(help);
  k.cli_flag = std::move(flag);
  k.group = std::move(group);
  return k;
}

Key Int(std::string name, int64_t def, int64_t lo, int64_t hi, std::string label,
        std::string help, std::string flag, std::string group) {
  Key k = Bool(std::move(name), false, std::move(label), std::move(help), std::move(flag),
               std::move(group));
  k.type = Type::kInt;
  k.default_value = std::to_string(def);
  k.int_min = lo;
  k.int_max = hi;
  return k;
}

Key Double(std::string name, float def, double lo, double hi, std::string label,
           std::string help, std::string flag, std::string group) {
  Key k = Bool(std::move(name), false, std::move(label), std::move(help), std::move(flag),
               std::move(group));
  k.type = Type::kDouble;
  k.default_value = FormatFloat(def);
  k.double_min = lo;
  k.double_max = hi;
  return k;
}

Key Enum(std::string name, std::string def, std::vector<std::string> choices, std::string label,
         std::string help, std::string flag, std::string group) {
  Key k = Bool(std::move(name), false, std::move(label), std::move(help), std::move(flag),
               std::move(group));
  k.type = Type::kEnum;
  k.default_value = std::move(def);
  k.choices = std::move(choices);
  return k;
}

Key String(std::string name, std::string def, Presentation presentation, std::string label,
           std::string help, std::string flag, std::string group) {
  Key k = Bool(std::move(name), false, std::move(label), std::move(help), std::move(flag),
               std::move(group));
  k.type = Type::kString;
  k.default_value = std::move(def);
  k.presentation = presentation;
  return k;
}

// The desktop app's stop sequences: one a line, with \n, \t and \\ escapes.
Key StopKey() {
  Key k = String("stop_sequences", "", Presentation::kMultiline, "Stop sequences",
                 "The answer ends before the first of these it writes; the stop sequence is not "
                 "shown or saved. One a line; \\n is a line break, \\t a tab, \\\\ a backslash. "
                 "A chat preset's own stop sequences replace these.",
                 "", "Generation");
  k.check = [](std::string_view value) -> std::optional<std::string> {
    try {
      ParseStopLines(value);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::nullopt;
  };
  return k;
}

template <typename Enum, size_t N>
std::vector<std::string> Names(const std::array<Enum, N>& all) {
  std::vector<std::string> names;
  for (Enum e : all) names.emplace_back(Name(e));
  return names;
}

std::vector<Key> BuildRegistry() {
  // Defaults come from the engine's own structs so the GUI, the CLI and the engine agree.
  const EngineOptions eo;
  const GenerateOptions go;
  const SamplingParams sp;
  return {
      String("model_dir", "", Presentation::kDirectory, "Model folder",
             "Folder of a Hugging Face Qwen3.5 checkpoint (config.json, model.safetensors, "
             "tokenizer.json, ...). Empty = the bundled demo model.",
             "model", "Model"),
      Enum("backend", std::string(Name(eo.backend)), Names(kBackends), "Backend",
           "Where the projections run. auto picks the NPU when it is usable and says why not "
           "otherwise; npu-emu runs the NPU code path on the CPU for testing.",
           "backend", "Model"),
      Enum("precision", std::string(Name(eo.precision)), Names(kPrecisions), "Weight precision",
           "How weights are held in memory: auto (the checkpoint's own int4 when it ships "
           "quantized, else q8), f32 (largest, reference), bf16 (as shipped), q8 or q4 "
           "(quantized blocks of 32; smaller and faster, slightly less accurate).",
           "precision", "Model"),
      Int("threads", eo.threads, 0, 1024, "Threads",
          "Worker threads for the CPU kernels. 0 = one per core.", "threads", "Model"),
      Int("context_length", kDefaultContextLimit, kMinContextLimit, kMaxContextLimit, "Context length",
          "The most tokens one chat may hold: its messages, images and answers. Longer chats "
          "remember more and use more memory. A value above the model's own limit "
          "(max_position_embeddings) is lowered to it. Applies from the next message. A full chat "
          "says so; start a new chat to go on.",
          "", "Model"),
      Int("max_new_tokens", go.max_new_tokens, 1, 32768, "Max new tokens",
          "Longest answer, in tokens, before generation stops.", "max-new-tokens",
          "Generation"),
      StopKey(),
      Enum("thinking", "default", {"default", "on", "off"}, "Thinking",
           "Whether the model reasons in a <think> block before answering. default = what the "
           "checkpoint's chat template does.",
           "thinking", "Generation"),
      Enum("speculative", "auto", {"auto", "off", "mtp"}, "Speculative decoding",
           "mtp = draft the next token with the checkpoint's own multi-token-prediction layer and "
           "check it in the same pass over the weights as the current one. Greedy answers are the "
           "same as with off, sampled ones follow the same distribution; fewer passes over the "
           "weights when drafts are accepted. Needs a checkpoint with an MTP layer. auto = mtp "
           "only where `glance-cli bench-speculative --model DIR` measured it faster on this "
           "machine for this model, precision and thread count; off otherwise.",
           "speculative", "Generation"),
      Bool("capture_attention", go.capture_attention, "Capture attention",
           "Record where each generated token looks in the image (for the attention panel). "
           "Costs a little speed.",
           "attention", "Generation"),
      Enum("sampling", kSamplingModel, {kSamplingModel, kSamplingGreedy, kSamplingCustom}, "Sampling",
           "model = what the model's generation_config.json asks for (as Hugging Face's "
           "generate does); greedy = always the most likely token (deterministic); custom = "
           "sample with the settings below.",
           "sampling", "Sampling"),
      Double("temperature", sp.temperature, 0.01, 5.0, "Temperature",
             "Sampling temperature: lower is more focused, higher more varied.", "temperature",
             "Sampling"),
      Int("top_k", sp.top_k, 0, 1000000, "Top-k",
          "Sample only among the k most likely tokens. 0 = off.", "top-k", "Sampling"),
      Double("top_p", sp.top_p, 0.01, 1.0, "Top-p",
             "Sample from the smallest set of tokens whose probabilities add up to p. 1 = off.",
             "top-p", "Sampling"),
      Double("min_p", sp.min_p, 0.0, 1.0, "Min-p",
             "Drop tokens less likely than min_p times the most likely one. 0 = off.", "min-p",
             "Sampling"),
      Double("repetition_penalty", sp.repetition_penalty, 0.1, 5.0, "Repetition penalty",
             "Divide the scores of tokens already in the context (>1 discourages repeats). "
             "1 = off.",
             "repetition-penalty", "Sampling"),
      Double("presence_penalty", sp.presence_penalty, -2.0, 2.0, "Presence penalty",
             "Subtract from the scores of tokens already generated this turn. 0 = off.",
             "presence-penalty", "Sampling"),
      Int("seed", kFreshSeed, kFreshSeed, std::numeric_limits<int32_t>::max(), "Seed",
          "Random seed for sampling; the same seed and settings give the same answer. -1 = a "
          "new seed every turn (so Regenerate gives a different answer).",
          "seed", "Sampling"),
      String("system_prompt", "", Presentation::kMultiline, "System prompt",
             "Instructions placed before the conversation. Takes effect in a new chat.",
             "system", "Chat"),
      Enum("image_mode", std::string(Name(ImageMode::kFast)), Names(kImageModes), "Image mode",
           "fast resizes images to 224x224 (49 image tokens); detail keeps more pixels "
           "(more tokens, slower, finer attention maps).",
           "image-mode", "Image"),
      Bool("caption_on_drop", true, "Caption on drop",
           "Describe an image as soon as it is dropped or pasted.", "", "Image"),
  };
}

const Key& Require(std::string_view name) {
  const Key* k = FindKey(name);
  if (!k) throw Error("unknown setting '" + std::string(name) + "'");
  return *k;
}

std::string ValueOf(const Values& values, const Key& key) {
  auto it = values.find(key.name);
  if (it == values.end()) return key.default_value;
  if (auto err = ValidationError(key, it->second)) throw Error(*err);
  return it->second;
}

const Key& RequireType(std::string_view name, std::initializer_list<Type> types,
                       const char* what) {
  const Key& k = Require(name);
  if (std::find(types.begin(), types.end(), k.type) == types.end())
    throw Error("setting '" + k.name + "' is not " + what);
  return k;
}

}  // namespace

const std::vector<Key>& Registry() {
  static const std::vector<Key> registry = BuildRegistry();
  return registry;
}

const Key* FindKey(std::string_view name) {
  for (const Key& k : Registry())
    if (k.name == name) return &k;
  return nullptr;
}

const Key* FindKeyByFlag(std::string_view cli_flag) {
  if (cli_flag.empty()) return nullptr;
  for (const Key& k : Registry())
    if (k.cli_flag == cli_flag) return &k;
  return nullptr;
}

std::optional<std::string> ValidationError(const Key& key, std::string_view value) {
  const std::string prefix = key.name + ": '" + std::string(value) + "' ";
  switch (key.type) {
    case Type::kBool:
      if (!ParseBool(value)) return prefix + "is not a boolean; use true or false";
      return std::nullopt;
    case Type::kInt: {
      auto n = ParseInt(value);
      if (!n)
        return prefix + "is not a whole number; allowed " + std::to_string(key.int_min) + ".." +
               std::to_string(key.int_max);
      if (*n < key.int_min || *n > key.int_max)
        return prefix + "is out of range; allowed " + std::to_string(key.int_min) + ".." +
               std::to_string(key.int_max);
      return std::nullopt;
    }
    case Type::kDouble: {
      auto d = ParseDouble(value);
      const std::string range = FormatDouble(key.double_min) + ".." + FormatDouble(key.double_max);
      if (!d) return prefix + "is not a number; allowed " + range;
      if (*d < key.double_min || *d > key.double_max)
        return prefix + "is out of range; allowed " + range;
      return std::nullopt;
    }
    case Type::kEnum:
      if (std::find(key.choices.begin(), key.choices.end(), value) == key.choices.end())
        return prefix + "is not one of " + Join(key.choices);
      return std::nullopt;
    case Type::kString:
      if (key.check)
        if (auto err = key.check(value)) return key.name + ": " + *err;
      return std::nullopt;
  }
  return std::nullopt;
}

void Validate(std::string_view key, std::string_view value) {
  if (auto err = ValidationError(Require(key), value)) throw Error(*err);
}

std::string Canonical(std::string_view key, std::string_view value) {
  const Key& k = Require(key);
  if (auto err = ValidationError(k, value)) throw Error(*err);
  switch (k.type) {
    case Type::kBool: return *ParseBool(value) ? "true" : "false";
    case Type::kInt: return std::to_string(*ParseInt(value));
    case Type::kDouble: return FormatDouble(*ParseDouble(value));
    default: return std::string(value);
  }
}

Values Defaults() {
  Values v;
  for (const Key& k : Registry()) v[k.name] = k.default_value;
  return v;
}

bool GetBool(const Values& values, std::string_view key) {
  return *ParseBool(ValueOf(values, RequireType(key, {Type::kBool}, "a boolean")));
}
int64_t GetInt(const Values& values, std::string_view key) {
  return *ParseInt(ValueOf(values, RequireType(key, {Type::kInt}, "an integer")));
}
double GetDouble(const Values& values, std::string_view key) {
  return *ParseDouble(ValueOf(values, RequireType(key, {Type::kDouble}, "a number")));
}
std::string GetString(const Values& values, std::string_view key) {
  return ValueOf(values, RequireType(key, {Type::kString, Type::kEnum}, "a string"));
}

void ApplyFlag(Values& values, std::string_view cli_flag, std::string_view value) {
  const Key* k = FindKeyByFlag(cli_flag);
  if (!k) throw Error("unknown option --" + std::string(cli_flag));
  if (auto err = ValidationError(*k, value)) throw Error("--" + std::string(cli_flag) + ": " + *err);
  values[k->name] = Canonical(k->name, value);
}

SamplingParams ToSamplingParams(const Values& values) {
  SamplingParams p;
  p.greedy = false;
  p.temperature = static_cast<float>(GetDouble(values, "temperature"));
  p.top_k = static_cast<int>(GetInt(values, "top_k"));
  p.top_p = static_cast<float>(GetDouble(values, "top_p"));
  p.min_p = static_cast<float>(GetDouble(values, "min_p"));
  p.repetition_penalty = static_cast<float>(GetDouble(values, "repetition_penalty"));
  p.presence_penalty = static_cast<float>(GetDouble(values, "presence_penalty"));
  return p;
}

GenerateOptions ToGenerateOptions(const Values& values) {
  GenerateOptions o;
  o.max_new_tokens = static_cast<int>(GetInt(values, "max_new_tokens"));
  const std::string sampling = GetString(values, "sampling");
  if (sampling == kSamplingGreedy) o.sampling = SamplingParams::Greedy();
  if (sampling == kSamplingCustom) o.sampling = ToSamplingParams(values);
  const int64_t seed = GetInt(values, "seed");
  if (seed != kFreshSeed) o.seed = static_cast<uint64_t>(seed);
  o.capture_attention = GetBool(values, "capture_attention");
  o.stop = ToStopSequences(values);
  const std::string speculative = GetString(values, "speculative");
  if (speculative == "mtp") o.speculative_draft_tokens = 1;  // --draft-tokens: more
  o.speculative_auto = speculative == "auto";
  const std::string thinking = GetString(values, "thinking");
  if (thinking == "on") o.enable_thinking = true;
  if (thinking == "off") o.enable_thinking = false;
  return o;
}

// Registry enums are validated against the names the parsers know, so these never fail.
EngineOptions ToEngineOptions(const Values& values) {
  EngineOptions o;
  o.threads = static_cast<int>(GetInt(values, "threads"));
  o.backend = *ParseBackend(GetString(values, "backend"));
  o.precision = *ParsePrecision(GetString(values, "precision"));
  return o;
}

std::vector<std::string> ToStopSequences(const Values& values) {
  return ParseStopLines(GetString(values, "stop_sequences"));
}

int ToContextLength(const Values& values) { return static_cast<int>(GetInt(values, "context_length")); }

ImageMode ToImageMode(const Values& values) { return *ParseImageMode(GetString(values, "image_mode")); }

}  // namespace glance::settings
