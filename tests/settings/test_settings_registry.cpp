// The settings registry: every default passes its own validator, bad values are rejected with
// a message naming the key and the allowed range, and the builders map values to the engine's
// option structs.
#include "core/settings/registry.h"

#include <gtest/gtest.h>

#include <set>

#include "core/util/error.h"

namespace glance::settings {
namespace {

TEST(SettingsRegistry, HasEveryDocumentedKeyOnce) {
  const std::set<std::string> expected = {
      "backend", "precision", "threads", "max_new_tokens", "temperature", "top_k", "top_p",
      "min_p", "repetition_penalty", "presence_penalty", "seed", "sampling", "system_prompt",
      "thinking", "image_mode", "caption_on_drop", "capture_attention", "model_dir", "speculative",
      "stop_sequences", "context_length"};
  std::set<std::string> names, flags;
  for (const Key& k : Registry()) {
    EXPECT_TRUE(names.insert(k.name).second) << "duplicate key " << k.name;
    if (!k.cli_flag.empty()) {
      EXPECT_TRUE(flags.insert(k.cli_flag).second) << k.cli_flag;
    }
    EXPECT_FALSE(k.help.empty()) << k.name;
    EXPECT_FALSE(k.label.empty()) << k.name;
  }
  EXPECT_EQ(names, expected);
}

TEST(SettingsRegistry, EveryDefaultPassesItsOwnValidator) {
  for (const Key& k : Registry()) {
    EXPECT_EQ(ValidationError(k, k.default_value), std::nullopt) << k.name;
    EXPECT_EQ(Canonical(k.name, k.default_value), k.default_value) << k.name;
  }
}

TEST(SettingsRegistry, RejectsOutOfRangeAndMalformedValuesNamingKeyAndRange) {
  auto err = ValidationError(*FindKey("temperature"), "9");
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("temperature"), std::string::npos) << *err;
  EXPECT_NE(err->find("0.01..5"), std::string::npos) << *err;

  err = ValidationError(*FindKey("backend"), "gpu");
  ASSERT_TRUE(err);
  EXPECT_NE(err->find("auto, cpu, npu, npu-emu"), std::string::npos) << *err;

  EXPECT_TRUE(ValidationError(*FindKey("top_k"), "12abc"));
  EXPECT_TRUE(ValidationError(*FindKey("top_k"), "-1"));
  EXPECT_TRUE(ValidationError(*FindKey("top_k"), ""));
  EXPECT_TRUE(ValidationError(*FindKey("top_p"), "nan"));
  EXPECT_TRUE(ValidationError(*FindKey("top_p"), "1.5"));
  EXPECT_TRUE(ValidationError(*FindKey("sampling"), "maybe"));
  EXPECT_TRUE(ValidationError(*FindKey("precision"), "fp8"));
  EXPECT_TRUE(ValidationError(*FindKey("seed"), "-2"));
  EXPECT_TRUE(ValidationError(*FindKey("max_new_tokens"), "0"));
  EXPECT_TRUE(ValidationError(*FindKey("seed"), "99999999999"));
  // Edges of ranges are inclusive.
  EXPECT_FALSE(ValidationError(*FindKey("top_p"), "1"));
  EXPECT_FALSE(ValidationError(*FindKey("presence_penalty"), "-2"));
  EXPECT_FALSE(ValidationError(*FindKey("sampling"), "greedy"));
  EXPECT_FALSE(ValidationError(*FindKey("seed"), "-1"));

  EXPECT_THROW(Validate("no_such_key", "1"), Error);
  EXPECT_THROW(Validate("threads", "-3"), Error);
  EXPECT_NO_THROW(Validate("threads", "4"));
}

TEST(SettingsRegistry, CanonicalFormsAndTypedReads) {
  EXPECT_EQ(Canonical("capture_attention", "on"), "true");
  EXPECT_EQ(Canonical("top_p", "0.50"), "0.5");
  EXPECT_EQ(Canonical("threads", "04"), "4");
  EXPECT_THROW(Canonical("threads", "4 "), Error);
}

TEST(SettingsRegistry, DefaultsBuildTheEngineDefaults) {
  const GenerateOptions built = ToGenerateOptions(Defaults());
  const GenerateOptions ref;
  EXPECT_EQ(built.max_new_tokens, ref.max_new_tokens);
  EXPECT_EQ(built.capture_attention, ref.capture_attention);
  EXPECT_EQ(built.enable_thinking, ref.enable_thinking);
  // Sampling: the checkpoint's generation_config.json, a fresh seed every turn.
  EXPECT_FALSE(built.sampling.has_value());
  EXPECT_FALSE(ref.sampling.has_value());
  EXPECT_FALSE(built.seed.has_value());
  EXPECT_FALSE(ref.seed.has_value());
  // The custom sampling keys start at the sampler's own defaults (sampled, not greedy).
  const SamplingParams custom = ToSamplingParams(Defaults()), sp;
  EXPECT_FALSE(custom.greedy);
  EXPECT_EQ(custom.temperature, sp.temperature);
  EXPECT_EQ(custom.top_k, sp.top_k);
  EXPECT_EQ(custom.top_p, sp.top_p);
  EXPECT_EQ(custom.min_p, sp.min_p);
  EXPECT_EQ(custom.repetition_penalty, sp.repetition_penalty);
  EXPECT_EQ(custom.presence_penalty, sp.presence_penalty);
  const EngineOptions eo = ToEngineOptions({});
  EXPECT_EQ(eo.backend, EngineOptions{}.backend);
  EXPECT_EQ(eo.threads, EngineOptions{}.threads);
  // The registry's precision default is the engine's: auto.
  EXPECT_EQ(eo.precision, EngineOptions{}.precision);
  EXPECT_EQ(eo.precision, Precision::kAuto);
}

TEST(SettingsRegistry, BuildersReadEveryValue) {
  Values v;
  ApplyFlag(v, "max-new-tokens", "77");
  ApplyFlag(v, "sampling", "custom");
  ApplyFlag(v, "temperature", "0.7");
  ApplyFlag(v, "top-k", "20");
  ApplyFlag(v, "top-p", "0.8");
  ApplyFlag(v, "min-p", "0.05");
  ApplyFlag(v, "repetition-penalty", "1.1");
  ApplyFlag(v, "presence-penalty", "1.5");
  ApplyFlag(v, "seed", "1234");
  ApplyFlag(v, "thinking", "off");
  ApplyFlag(v, "attention", "0");
  ApplyFlag(v, "backend", "cpu");
  ApplyFlag(v, "threads", "3");
  ApplyFlag(v, "precision", "q4");
  ApplyFlag(v, "image-mode", "detail");
  const GenerateOptions o = ToGenerateOptions(v);
  EXPECT_EQ(o.max_new_tokens, 77);
  ASSERT_TRUE(o.sampling.has_value());
  EXPECT_FALSE(o.sampling->greedy);
  EXPECT_FLOAT_EQ(o.sampling->temperature, 0.7f);
  EXPECT_EQ(o.sampling->top_k, 20);
  EXPECT_FLOAT_EQ(o.sampling->top_p, 0.8f);
  EXPECT_FLOAT_EQ(o.sampling->min_p, 0.05f);
  EXPECT_FLOAT_EQ(o.sampling->repetition_penalty, 1.1f);
  EXPECT_FLOAT_EQ(o.sampling->presence_penalty, 1.5f);
  EXPECT_EQ(o.seed, std::optional<uint64_t>(1234u));
  ASSERT_TRUE(o.enable_thinking.has_value());
  EXPECT_FALSE(*o.enable_thinking);
  EXPECT_FALSE(o.capture_attention);
  EXPECT_EQ(ToEngineOptions(v).backend, BackendKind::kCpu);
  EXPECT_EQ(ToEngineOptions(v).threads, 3);
  EXPECT_EQ(ToEngineOptions(v).precision, Precision::kQ4);
  EXPECT_EQ(ToImageMode(v), ImageMode::kDetail);
  EXPECT_EQ(ToImageMode({}), ImageMode::kFast);
  v["sampling"] = kSamplingGreedy;
  ASSERT_TRUE(ToGenerateOptions(v).sampling.has_value());
  EXPECT_TRUE(ToGenerateOptions(v).sampling->greedy);
  v["sampling"] = kSamplingModel;
  EXPECT_FALSE(ToGenerateOptions(v).sampling.has_value());

  v["thinking"] = "on";
  EXPECT_EQ(ToGenerateOptions(v).enable_thinking, std::optional<bool>(true));
}

// Issue 34: stop sequences (one a line, with escapes) and the context length, each bad value one
// line naming the key and the problem.
TEST(SettingsRegistry, StopSequencesAndContextLength) {
  EXPECT_TRUE(ToGenerateOptions(Defaults()).stop.empty());
  EXPECT_EQ(ToContextLength(Defaults()), kDefaultContextLimit);
  Values v;
  v["stop_sequences"] = std::string("END") + '\n' + "\\n\\n" + '\n' + "User:";
  EXPECT_EQ(ToGenerateOptions(v).stop, (std::vector<std::string>{"END", "\n\n", "User:"}));
  EXPECT_EQ(ToStopSequences(v), ToGenerateOptions(v).stop);
  EXPECT_EQ(ValidationError(*FindKey("stop_sequences"), "ok\nbad \\q"),
            std::optional<std::string>("stop_sequences: line 2: unknown escape \\q; use \\n, \\t or \\\\"));
  v["stop_sequences"] = "bad \\q";
  EXPECT_THROW(ToGenerateOptions(v), Error);  // a stored bad value is reported, not used

  v["context_length"] = "8192";
  EXPECT_EQ(ToContextLength(v), 8192);
  auto err = ValidationError(*FindKey("context_length"), "100");
  ASSERT_TRUE(err);
  EXPECT_EQ(*err, "context_length: '100' is out of range; allowed 512..1048576");
  EXPECT_TRUE(ValidationError(*FindKey("context_length"), "2000000"));
  EXPECT_TRUE(ValidationError(*FindKey("context_length"), "lots"));
  EXPECT_FALSE(ValidationError(*FindKey("context_length"), "512"));
}

TEST(SettingsRegistry, ApplyFlagRejectsUnknownFlagsAndBadValues) {
  Values v;
  try {
    ApplyFlag(v, "top-p", "2");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--top-p"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ApplyFlag(v, "caption-on-drop", "1"), Error);  // GUI-only key
  EXPECT_THROW(ApplyFlag(v, "nope", "1"), Error);
  EXPECT_TRUE(v.empty());
  // A stored invalid value is reported when read, not silently used.
  v["top_k"] = "lots";
  EXPECT_THROW(GetInt(v, "top_k"), Error);
  EXPECT_THROW(GetBool(v, "top_k"), Error);  // wrong type
}

}  // namespace
}  // namespace glance::settings
