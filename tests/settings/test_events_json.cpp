// JSON round trips of the engine's value types (core/engine/events_json.h): every field
// survives, floats bit-exactly, and malformed documents are rejected with glance::Error.
#include "core/engine/events_json.h"

#include <gtest/gtest.h>

#include "core/util/error.h"
#include "core/util/json_field.h"

namespace glance {
namespace {

AttentionMap SampleMap() {
  AttentionMap m;
  m.step = 3;
  m.token_id = 42;
  m.token_text = " caf\xc3\xa9";
  m.image_index = 1;
  m.grid_h = 2;
  m.grid_w = 3;
  m.layers = {3, 7};
  m.n_heads = 2;
  for (int i = 0; i < 2 * 2 * 6; ++i) m.weights.push_back(0.1f * static_cast<float>(i) + 1e-7f);
  for (int i = 0; i < 6; ++i) m.mean.push_back(1.0f / 3.0f * static_cast<float>(i));
  return m;
}

TEST(EventsJson, AttentionMapRoundTripsBitExactly) {
  const AttentionMap m = SampleMap();
  const std::string text = ToJson(m).dump();
  const AttentionMap back = AttentionMapFromJson(nlohmann::json::parse(text));
  EXPECT_EQ(back.step, m.step);
  EXPECT_EQ(back.token_id, m.token_id);
  EXPECT_EQ(back.token_text, m.token_text);
  EXPECT_EQ(back.image_index, m.image_index);
  EXPECT_EQ(back.grid_h, m.grid_h);
  EXPECT_EQ(back.grid_w, m.grid_w);
  EXPECT_EQ(back.layers, m.layers);
  EXPECT_EQ(back.n_heads, m.n_heads);
  EXPECT_EQ(back.weights, m.weights);  // exact float equality
  EXPECT_EQ(back.mean, m.mean);
}

TEST(EventsJson, DeltaNetHiddenAttentionRoundTripsAndIsCheckedForShape) {
  AttentionMap m = SampleMap();
  EXPECT_FALSE(ToJson(m).contains("linear_weights"));  // not captured: the map's JSON is unchanged
  m.linear_layers = {0, 1, 2};
  m.linear_heads = 2;
  for (int i = 0; i < 3 * 2 * 6; ++i) m.linear_weights.push_back(-0.05f * static_cast<float>(i) + 1e-7f);
  const AttentionMap back = AttentionMapFromJson(nlohmann::json::parse(ToJson(m).dump()));
  EXPECT_EQ(back.linear_layers, m.linear_layers);
  EXPECT_EQ(back.linear_heads, m.linear_heads);
  EXPECT_EQ(back.linear_weights, m.linear_weights);  // exact, signs included
  EXPECT_EQ(back.weights, m.weights);
  nlohmann::json j = ToJson(m);
  j["linear_weights"].erase(0);
  try {
    AttentionMapFromJson(j);
    ADD_FAILURE() << "a short linear_weights was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("linear_weights"), std::string::npos) << e.what();
  }
}

TEST(EventsJson, AttentionMapWithInconsistentShapeIsRejected) {
  nlohmann::json j = ToJson(SampleMap());
  j["weights"].erase(0);
  EXPECT_THROW(AttentionMapFromJson(j), Error);
  nlohmann::json k = ToJson(SampleMap());
  k.erase("mean");
  EXPECT_THROW(AttentionMapFromJson(k), Error);
  nlohmann::json t = ToJson(SampleMap());
  t["step"] = "three";
  EXPECT_THROW(AttentionMapFromJson(t), Error);
}

TEST(EventsJson, AttentionExportRoundTripsAndUsesTheOneMapSchema) {
  AttentionExport e{"tiny-a", "q8", {SampleMap(), SampleMap()}, {{" caf\xc3\xa9", 3, 4}}};
  e.maps[1].step = 4;
  const nlohmann::json j = nlohmann::json::parse(ToJson(e).dump());
  EXPECT_EQ(j.at("tokens").at(0), ToJson(e.maps[0]));  // a token is exactly ToJson(AttentionMap)
  EXPECT_TRUE(j.at("tokens").at(0).contains("token_text"));
  EXPECT_EQ(j.at("grid_w"), 3);
  const AttentionExport back = AttentionExportFromJson(j);
  EXPECT_EQ(back.model, "tiny-a");
  EXPECT_EQ(back.precision, "q8");
  ASSERT_EQ(back.maps.size(), 2u);
  EXPECT_EQ(back.maps[1].step, 4);
  EXPECT_EQ(back.maps[0].weights, e.maps[0].weights);
  ASSERT_EQ(back.words.size(), 1u);
  EXPECT_EQ(back.words[0].last_step, 4);
  const nlohmann::json empty = ToJson(AttentionExport{});
  EXPECT_FALSE(empty.contains("model"));
  EXPECT_FALSE(empty.contains("grid_h"));
}

TEST(EventsJson, AttentionExportWrittenBeforeTheOneSchemaStillReads) {
  // The GUI's export until 2026-12: "text" per token, layers and heads only at the top level.
  const AttentionMap m = SampleMap();
  nlohmann::json token = {{"step", m.step}, {"token_id", m.token_id}, {"text", m.token_text},
                          {"image_index", m.image_index}, {"grid_h", m.grid_h}, {"grid_w", m.grid_w},
                          {"mean", m.mean}, {"weights", m.weights}};
  const nlohmann::json old = {{"grid_h", 2}, {"grid_w", 3}, {"layers", m.layers}, {"n_heads", m.n_heads},
                              {"tokens", {token}}, {"words", nlohmann::json::array()}};
  const AttentionExport back = AttentionExportFromJson(old);
  ASSERT_EQ(back.maps.size(), 1u);
  EXPECT_EQ(back.maps[0].token_text, m.token_text);
  EXPECT_EQ(back.maps[0].layers, m.layers);
  EXPECT_EQ(back.maps[0].weights, m.weights);
  // Negative controls: no text under either key, or no layers anywhere, is refused.
  nlohmann::json no_text = old;
  no_text["tokens"][0].erase("text");
  EXPECT_THROW(AttentionExportFromJson(no_text), Error);
  nlohmann::json no_layers = old;
  no_layers.erase("layers");
  EXPECT_THROW(AttentionExportFromJson(no_layers), Error);
  EXPECT_THROW(AttentionExportFromJson(nlohmann::json{{"tokens", 1}, {"words", nlohmann::json::array()}}), Error);
}

TEST(EventsJson, ImageInfoAndStatsRoundTrip) {
  ImageInfo info{"/tmp/a.png", "ab12", 640, 480, 224, 224, 7, 7, ImageMode::kFast};
  const ImageInfo ib = ImageInfoFromJson(nlohmann::json::parse(ToJson(info).dump()));
  EXPECT_EQ(ib.path, info.path);
  EXPECT_EQ(ib.sha256, info.sha256);
  EXPECT_EQ(ib.source_w, 640);
  EXPECT_EQ(ib.source_h, 480);
  EXPECT_EQ(ib.resized_w, 224);
  EXPECT_EQ(ib.grid_h, 7);
  EXPECT_EQ(ib.mode, ImageMode::kFast);
  EXPECT_EQ(ToJson(info)["tokens"], 49);

  TurnStats s;
  s.image_tokens = 49;
  s.prompt_tokens = 60;
  s.context_tokens = 80;
  s.generated_tokens = 20;
  s.prefill_s = 0.125;
  s.prefill_tokens_per_s = 480.1;
  s.ttft_s = 0.2;
  s.decode_s = 1.0 / 3.0;
  s.decode_tokens_per_s = 57.0;
  s.total_s = 0.6;
  s.backend = "npu";
  s.backend_reason = "device ok";
  s.threads = 8;
  s.stages = {{"vision", 0.05, 1}, {"decode", 0.3, 19}};
  s.token_latencies_s = {0.01, 0.02, 1e-9};
  const TurnStats sb = TurnStatsFromJson(nlohmann::json::parse(ToJson(s).dump()));
  EXPECT_EQ(ToJson(sb), ToJson(s));
  EXPECT_EQ(sb.decode_s, s.decode_s);
  ASSERT_EQ(sb.stages.size(), 2u);
  EXPECT_EQ(sb.stages[1].name, "decode");
  EXPECT_EQ(sb.stages[1].calls, 19);
  EXPECT_EQ(sb.token_latencies_s, s.token_latencies_s);
  EXPECT_EQ(sb.precision, Precision::kF32);
  EXPECT_FALSE(sb.seed.has_value());
  // Negative control: a changed field shows up in the comparison.
  TurnStats changed = sb;
  changed.threads = 9;
  EXPECT_NE(ToJson(changed), ToJson(s));
  // Precision and seed round-trip; a turn saved before they were recorded reads as f32.
  s.precision = Precision::kQ4;
  s.seed = 1234567890123ull;
  const TurnStats sq = TurnStatsFromJson(nlohmann::json::parse(ToJson(s).dump()));
  EXPECT_EQ(sq.precision, Precision::kQ4);
  EXPECT_EQ(sq.seed, s.seed);
  nlohmann::json old = ToJson(s);
  old.erase("precision");
  old.erase("seed");
  EXPECT_EQ(TurnStatsFromJson(old).precision, Precision::kF32);
  old["precision"] = "fp8";
  EXPECT_THROW(TurnStatsFromJson(old), Error);
  // Speculative counts round-trip (absent for a plain turn); inconsistent ones are refused.
  EXPECT_FALSE(HasField(ToJson(s), "speculative"));
  s.draft_tokens = 2;
  s.drafted = 10;
  s.accepted = 7;
  s.weight_passes = 6;
  const TurnStats ss = TurnStatsFromJson(nlohmann::json::parse(ToJson(s).dump()));
  EXPECT_EQ(ToJson(ss), ToJson(s));
  EXPECT_EQ(ss.accepted, 7);
  EXPECT_EQ(ss.weight_passes, 6);
  nlohmann::json bad_counts = ToJson(s);
  bad_counts["speculative"]["accepted"] = 11;
  EXPECT_THROW(TurnStatsFromJson(bad_counts), Error);
  nlohmann::json bad_mode = ToJson(info);
  bad_mode["mode"] = "sideways";
  EXPECT_THROW(ImageInfoFromJson(bad_mode), Error);
}

}  // namespace
}  // namespace glance
