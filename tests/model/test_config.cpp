// ModelConfig parsing: the tiny-a golden config (values from tests/data/tiny-a/README.md) and
// hand-written variants for defaults, old rope forms, and every refusal path.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>
#include <string>

#include "core/model/config.h"
#include "core/model/config_check.h"
#include "core/model/safetensors.h"
#include "core/util/error.h"

using glance::Error;
using glance::LayerType;
using glance::ModelConfig;
using nlohmann::json;

namespace {

const std::string kTinyConfig = std::string(GLANCE_TEST_DATA) + "/tiny-a/config.json";

json TinyJson() {
  std::ifstream in(kTinyConfig);
  return json::parse(in);
}

ModelConfig Parse(const json& j) { return ModelConfig::FromJsonText(j.dump(), "variant/config.json"); }

// Expects a glance::Error whose message contains every one of `parts`.
void ExpectError(const json& j, std::initializer_list<std::string> parts) {
  try {
    Parse(j);
    ADD_FAILURE() << "expected an error containing '" << *parts.begin() << "'";
  } catch (const Error& e) {
    const std::string msg = e.what();
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "message: " << msg << "\nmissing: " << p;
  }
}

}  // namespace

TEST(ModelConfig, TinyAMatchesReadme) {
  const ModelConfig c = ModelConfig::FromFile(kTinyConfig);
  EXPECT_EQ(c.model_type, "qwen3_5");
  const auto& t = c.text;
  EXPECT_EQ(t.num_hidden_layers, 8);
  EXPECT_EQ(t.hidden_size, 64);
  EXPECT_EQ(t.num_attention_heads, 4);
  EXPECT_EQ(t.num_key_value_heads, 2);
  EXPECT_EQ(t.head_dim, 32);
  EXPECT_EQ(t.rotary_dim(), 8);
  EXPECT_EQ(t.mrope_section, (std::array<int, 3>{2, 1, 1}));
  EXPECT_TRUE(t.mrope_interleaved);
  EXPECT_DOUBLE_EQ(t.rope_theta, 1e7);
  EXPECT_EQ(t.linear_num_key_heads, 2);
  EXPECT_EQ(t.linear_key_head_dim, 16);
  EXPECT_EQ(t.linear_num_value_heads, 4);
  EXPECT_EQ(t.linear_value_head_dim, 16);
  EXPECT_EQ(t.conv_dim(), 128);  // README: conv_state [conv_dim=128, 4]
  EXPECT_EQ(t.linear_conv_kernel_dim, 4);
  EXPECT_EQ(t.intermediate_size, 128);
  EXPECT_EQ(t.vocab_size, 4096);
  EXPECT_FALSE(t.tie_word_embeddings);
  EXPECT_EQ(t.max_position_embeddings, 262144);
  EXPECT_DOUBLE_EQ(t.rms_norm_eps, 1e-6);
  EXPECT_EQ(t.eos_token_ids, (std::vector<int64_t>{4063}));
  ASSERT_EQ(t.layer_types.size(), 8u);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(t.layer_types[i], (i == 3 || i == 7) ? LayerType::kFullAttention : LayerType::kLinearAttention) << i;
  const auto& v = c.vision;
  EXPECT_EQ(v.depth, 2);
  EXPECT_EQ(v.hidden_size, 32);
  EXPECT_EQ(v.num_heads, 2);
  EXPECT_EQ(v.head_dim(), 16);
  EXPECT_EQ(v.intermediate_size, 64);
  EXPECT_EQ(v.patch_size, 16);
  EXPECT_EQ(v.temporal_patch_size, 2);
  EXPECT_EQ(v.spatial_merge_size, 2);
  EXPECT_EQ(v.out_hidden_size, 64);
  EXPECT_EQ(v.num_position_embeddings, 64);
  EXPECT_EQ(v.patch_dim(), 1536);  // README: pixel_values 196x1536
  EXPECT_DOUBLE_EQ(v.rope_theta, 10000.0);
  EXPECT_EQ(c.image_token_id, 4075);
  EXPECT_EQ(c.video_token_id, 4076);
  EXPECT_EQ(c.vision_start_token_id, 4072);
  EXPECT_EQ(c.vision_end_token_id, 4073);
}

TEST(ModelConfig, ClassDefaultsWhenFieldsAreAbsent) {
  // Only the required skeleton: every value must come from qwen35.md §1.1-1.3.
  const json j = {{"architectures", {"Qwen3_5ForConditionalGeneration"}},
                  {"model_type", "qwen3_5"},
                  {"text_config", json::object()},
                  {"vision_config", json::object()}};
  const ModelConfig c = Parse(j);
  EXPECT_EQ(c.text.vocab_size, 248320);
  EXPECT_EQ(c.text.hidden_size, 4096);
  EXPECT_EQ(c.text.num_hidden_layers, 32);
  EXPECT_EQ(c.text.head_dim, 256);
  EXPECT_EQ(c.text.rotary_dim(), 64);
  EXPECT_EQ(c.text.mrope_section, (std::array<int, 3>{11, 11, 10}));
  EXPECT_EQ(c.vision.depth, 27);
  EXPECT_EQ(c.vision.num_position_embeddings, 2304);
  EXPECT_EQ(c.image_token_id, 248056);
  EXPECT_TRUE(c.text.eos_token_ids.empty());
  // Derived layer_types: full iff (i+1) % 4 == 0.
  ASSERT_EQ(c.text.layer_types.size(), 32u);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(c.text.layer_types[i], (i + 1) % 4 == 0 ? LayerType::kFullAttention : LayerType::kLinearAttention);
}

TEST(ModelConfig, DerivesLayerTypesFromInterval) {
  json j = TinyJson();
  j["text_config"].erase("layer_types");
  j["text_config"]["full_attention_interval"] = 2;
  const ModelConfig c = Parse(j);
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(c.text.layer_types[i], i % 2 == 1 ? LayerType::kFullAttention : LayerType::kLinearAttention);
}

TEST(ModelConfig, OldRopeScalingForm) {
  json j = TinyJson();
  auto& tc = j["text_config"];
  tc.erase("rope_parameters");
  tc.erase("partial_rotary_factor");
  tc["rope_scaling"] = {{"type", "mrope"}, {"mrope_section", {1, 2, 1}}, {"mrope_interleaved", false}};
  tc["partial_rotary_factor"] = 0.25;
  j["rope_theta"] = 5e5;  // top-level theta of the older form
  const ModelConfig c = Parse(j);
  EXPECT_DOUBLE_EQ(c.text.rope_theta, 5e5);
  EXPECT_EQ(c.text.mrope_section, (std::array<int, 3>{1, 2, 1}));
  EXPECT_FALSE(c.text.mrope_interleaved);
  // text_config-level theta wins over the top level.
  tc["rope_theta"] = 1234.0;
  EXPECT_DOUBLE_EQ(Parse(j).text.rope_theta, 1234.0);
}

TEST(ModelConfig, RopeFieldsAtTextLevel) {
  json j = TinyJson();
  auto& tc = j["text_config"];
  tc["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", 100.0}};
  tc["mrope_section"] = {3, 1, 0};
  tc["mrope_interleaved"] = false;
  const ModelConfig c = Parse(j);
  EXPECT_DOUBLE_EQ(c.text.rope_theta, 100.0);
  EXPECT_EQ(c.text.mrope_section, (std::array<int, 3>{3, 1, 0}));
  EXPECT_FALSE(c.text.mrope_interleaved);
}

TEST(ModelConfig, EosListAndVisionVariants) {
  json j = TinyJson();
  j["text_config"]["eos_token_id"] = {4065, 4063};
  j["vision_config"]["model_type"] = "qwen3_5";  // older checkpoints
  j["vision_config"]["rope_parameters"] = {{"rope_type", "axial"}, {"rope_theta", 500.0}};
  const ModelConfig c = Parse(j);
  EXPECT_EQ(c.text.eos_token_ids, (std::vector<int64_t>{4065, 4063}));
  EXPECT_DOUBLE_EQ(c.vision.rope_theta, 500.0);
}

TEST(ModelConfig, RefusesOtherArchitectures) {
  const json llama = {{"architectures", {"LlamaForCausalLM"}}, {"model_type", "llama"}, {"hidden_size", 4096}};
  ExpectError(llama, {"variant/config.json", "LlamaForCausalLM (model_type llama)", "Qwen3_5ForConditionalGeneration"});
  json qwen3vl = TinyJson();
  qwen3vl["architectures"] = {"Qwen3VLForConditionalGeneration"};
  qwen3vl["model_type"] = "qwen3_vl";
  ExpectError(qwen3vl, {"Qwen3VLForConditionalGeneration (model_type qwen3_vl)"});
}

TEST(ModelConfig, RejectsBadFieldsNamingThem) {
  struct Case {
    std::function<void(json&)> edit;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases = {
      {[](json& j) { j.erase("text_config"); }, {"'text_config'", "missing"}},
      {[](json& j) { j.erase("vision_config"); }, {"'vision_config'"}},
      {[](json& j) { j["text_config"]["hidden_size"] = "64"; }, {"'text_config.hidden_size'", "integer"}},
      {[](json& j) { j["text_config"]["hidden_size"] = 0; }, {"'text_config.hidden_size'", "positive"}},
      {[](json& j) { j["text_config"]["num_attention_heads"] = -4; }, {"text_config.num_attention_heads"}},
      {[](json& j) { j["text_config"]["num_key_value_heads"] = 3; }, {"text_config.num_key_value_heads", "divide"}},
      {[](json& j) { j["text_config"]["linear_num_key_heads"] = 3; }, {"text_config.linear_num_key_heads"}},
      {[](json& j) { j["text_config"]["layer_types"].erase(0); }, {"text_config.layer_types", "7 entries", "8"}},
      {[](json& j) { j["text_config"]["layer_types"][2] = "sliding_attention"; },
       {"text_config.layer_types", "entry 2", "sliding_attention"}},
      {[](json& j) { j["text_config"]["layer_types"] = "full"; }, {"text_config.layer_types", "list"}},
      {[](json& j) { j["text_config"]["rope_parameters"]["mrope_section"] = {2, 1}; },
       {"text_config.rope_parameters.mrope_section", "3"}},
      {[](json& j) { j["text_config"]["rope_parameters"]["mrope_section"] = {2, 2, 2}; },
       {"text_config.rope_parameters.mrope_section", "sums to 6"}},
      {[](json& j) { j["text_config"]["rope_parameters"]["rope_type"] = "yarn"; }, {"rope_type", "yarn"}},
      {[](json& j) { j["text_config"]["rope_parameters"]["rope_theta"] = "big"; },
       {"text_config.rope_parameters.rope_theta", "number"}},
      {[](json& j) { j["text_config"]["tie_word_embeddings"] = 1; }, {"text_config.tie_word_embeddings", "true or false"}},
      {[](json& j) { j["text_config"]["eos_token_id"] = "eos"; }, {"text_config.eos_token_id"}},
      {[](json& j) { j["text_config"]["eos_token_id"] = 99999; }, {"text_config.eos_token_id", "outside"}},
      {[](json& j) { j["text_config"]["hidden_act"] = "relu"; }, {"text_config.hidden_act"}},
      {[](json& j) { j["text_config"] = 5; }, {"'text_config'", "object"}},
      {[](json& j) { j["vision_config"]["num_heads"] = 3; }, {"vision_config.num_heads", "divide", "32"}},
      {[](json& j) { j["vision_config"]["depth"] = 1.5; }, {"vision_config.depth", "integer"}},
      {[](json& j) { j["vision_config"]["model_type"] = "siglip"; }, {"vision_config.model_type", "siglip"}},
      {[](json& j) { j["vision_config"]["num_position_embeddings"] = 60; },
       {"vision_config.num_position_embeddings", "square"}},
      {[](json& j) { j["image_token_id"] = 5000; }, {"'image_token_id'", "outside"}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    json j = TinyJson();
    cases[i].edit(j);
    try {
      Parse(j);
      ADD_FAILURE() << "accepted a bad config";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("variant/config.json"), std::string::npos) << msg;
      for (const auto& p : cases[i].parts) EXPECT_NE(msg.find(p), std::string::npos) << msg << "\nmissing: " << p;
    }
  }
}

TEST(ModelConfig, FileErrors) {
  try {
    ModelConfig::FromFile("/nonexistent/config.json");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/config.json"), std::string::npos);
  }
  try {
    ModelConfig::FromJsonText("{not json", "x/config.json");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x/config.json is not valid JSON"), std::string::npos);
  }
}

// ---- Issue 12 items 4, 5, 9: counts and sizes from a hostile config.json. ----
namespace {

TEST(ModelConfigHostile, HugeCountsAreRefusedQuicklyNamingTheField) {
  struct Case {
    std::function<void(json&)> edit;
    std::vector<std::string> parts;
  };
  const int64_t kInt64Max = INT64_MAX;
  const std::vector<Case> cases = {
      // Item 4: (side+1)^2 overflowed and the square-root loop never ended.
      {[&](json& j) { j["vision_config"]["num_position_embeddings"] = kInt64Max; }, {"vision_config.num_position_embeddings"}},
      {[](json& j) { j["vision_config"]["num_position_embeddings"] = int64_t{3037000499} * 3037000499; },
       {"vision_config.num_position_embeddings"}},  // a perfect square next to INT64_MAX
      {[](json& j) { j["vision_config"]["num_position_embeddings"] = int64_t{4097} * 4097; },
       {"vision_config.num_position_embeddings", "4096 x 4096"}},
      // Item 5: per-layer tables sized from the count.
      {[](json& j) { j["text_config"]["num_hidden_layers"] = int64_t{1} << 30; j["text_config"].erase("layer_types"); },
       {"text_config.num_hidden_layers", "1073741824"}},
      {[](json& j) { j["text_config"]["num_hidden_layers"] = 1025; j["text_config"].erase("layer_types"); },
       {"text_config.num_hidden_layers"}},
      {[](json& j) { j["vision_config"]["depth"] = int64_t{1} << 40; }, {"vision_config.depth"}},
      // Item 9: floats out of int64 range (casting them was undefined behaviour).
      {[](json& j) { j["text_config"]["vocab_size"] = 1e300; }, {"text_config.vocab_size", "integer"}},
      {[](json& j) { j["text_config"]["vocab_size"] = -1e300; }, {"text_config.vocab_size", "integer"}},
      {[](json& j) { j["text_config"]["hidden_size"] = 9.3e18; }, {"text_config.hidden_size", "integer"}},
      {[](json& j) { j["text_config"]["vocab_size"] = 1e18; }, {"text_config.vocab_size", "at most"}},
      {[](json& j) { j["text_config"]["head_dim"] = int64_t{1} << 31; }, {"text_config.head_dim", "at most"}},
      {[](json& j) { j["vision_config"]["spatial_merge_size"] = int64_t{1} << 30; }, {"vision_config.spatial_merge_size"}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    json j = TinyJson();
    cases[i].edit(j);
    const auto t0 = std::chrono::steady_clock::now();
    try {
      Parse(j);
      ADD_FAILURE() << "accepted a hostile config";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("variant/config.json"), std::string::npos) << msg;
      for (const auto& p : cases[i].parts) EXPECT_NE(msg.find(p), std::string::npos) << msg << "\nmissing: " << p;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  }
  // Controls: the largest square table and an integral float still parse.
  json ok = TinyJson();
  ok["text_config"]["vocab_size"] = static_cast<double>(ok["text_config"]["vocab_size"].get<int64_t>());
  EXPECT_NO_THROW(Parse(ok));
  ok["vision_config"]["num_position_embeddings"] = 4096 * 4096;
  EXPECT_EQ(Parse(ok).vision.num_position_embeddings, 4096 * 4096);
}

TEST(ModelConfigHostile, CountsAreCheckedAgainstTheWeightsPresent) {
  const std::string dir = std::string(GLANCE_TEST_DATA) + "/tiny-a";
  const glance::TensorStore store = glance::TensorStore::OpenFolder(dir);
  const ModelConfig real = ModelConfig::FromFile(kTinyConfig);
  EXPECT_NO_THROW(glance::CheckConfigCountsAgainstWeights(real, store, kTinyConfig));
  auto expect = [&](const ModelConfig& c, std::initializer_list<std::string> parts) {
    try {
      glance::CheckConfigCountsAgainstWeights(c, store, kTinyConfig);
      ADD_FAILURE() << "accepted counts the weights do not have";
    } catch (const Error& e) {
      for (const auto& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
    }
  };
  ModelConfig more_layers = real;
  more_layers.text.num_hidden_layers += 1;
  more_layers.text.layer_types.push_back(LayerType::kLinearAttention);
  expect(more_layers, {"config.json", "text_config.num_hidden_layers", std::to_string(real.text.num_hidden_layers) + " language-model layers"});
  ModelConfig deeper = real;
  deeper.vision.depth = 1000;
  expect(deeper, {"vision_config.depth", "1000", std::to_string(real.vision.depth) + " vision blocks"});
  ModelConfig wider = real;
  wider.vision.num_position_embeddings = 100 * 100;
  expect(wider, {"vision_config.num_position_embeddings", "10000", "pos_embed.weight"});
  // Fewer layers than stored is what HF does too (the rest is unused), not an error.
  ModelConfig fewer = real;
  fewer.text.num_hidden_layers -= 1;
  fewer.text.layer_types.pop_back();
  EXPECT_NO_THROW(glance::CheckConfigCountsAgainstWeights(fewer, store, kTinyConfig));
}

}  // namespace
