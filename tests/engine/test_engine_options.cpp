// Typed engine options: names parse and print back, precision auto resolves at load and the
// resolved precision is reported, and sampling defaults come from generation_config.json the
// way Hugging Face's GenerationConfig reads it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/engine/engine.h"
#include "core/engine/engine_options.h"
#include "core/engine/sampler.h"
#include "core/util/error.h"

using namespace glance;
namespace fs = std::filesystem;

namespace {

TEST(EngineOptions, NamesRoundTripAndUnknownNamesAreRefused) {
  for (Precision p : kPrecisions) EXPECT_EQ(ParsePrecision(Name(p)), p);
  for (BackendKind b : kBackends) EXPECT_EQ(ParseBackend(Name(b)), b);
  for (ImageMode m : kImageModes) EXPECT_EQ(ParseImageMode(Name(m)), m);
  EXPECT_FALSE(ParsePrecision("fp8"));
  EXPECT_FALSE(ParsePrecision("Q4"));
  EXPECT_FALSE(ParseBackend("gpu"));
  EXPECT_FALSE(ParseImageMode(""));
  EXPECT_EQ(PrecisionNames(), "auto, f32, bf16, q8, q4");
  EXPECT_EQ(BackendNames(), "auto, cpu, npu, npu-emu");
  EXPECT_EQ(ImageModeNames(), "fast, detail");
  EXPECT_EQ(EngineOptions{}.precision, Precision::kAuto);
}

class GenerationConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("glance-genconfig-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& text) {
    const std::string p = (dir_ / "generation_config.json").string();
    std::ofstream(p) << text;
    return p;
  }
  fs::path dir_;
};

TEST_F(GenerationConfig, GreedyUnlessItSamplesAndHfDefaultsFillTheRest) {
  EXPECT_TRUE(SamplingFromGenerationConfig((dir_ / "absent.json").string()).greedy);
  EXPECT_TRUE(SamplingFromGenerationConfig(Write(R"({"do_sample": false, "temperature": 0.6})")).greedy);
  EXPECT_TRUE(SamplingFromGenerationConfig(Write(R"({"eos_token_id": [1, 2]})")).greedy);
  // The released Qwen3.5 checkpoints' sampling block.
  SamplingParams p = SamplingFromGenerationConfig(
      Write(R"({"do_sample": true, "temperature": 0.6, "top_k": 20, "top_p": 0.95, "repetition_penalty": 1.05})"));
  EXPECT_FALSE(p.greedy);
  EXPECT_FLOAT_EQ(p.temperature, 0.6f);
  EXPECT_EQ(p.top_k, 20);
  EXPECT_FLOAT_EQ(p.top_p, 0.95f);
  EXPECT_FLOAT_EQ(p.repetition_penalty, 1.05f);
  // Fields left out take GenerationConfig's defaults (top_k 50, not "off").
  p = SamplingFromGenerationConfig(Write(R"({"do_sample": true})"));
  EXPECT_FALSE(p.greedy);
  EXPECT_FLOAT_EQ(p.temperature, 1.0f);
  EXPECT_EQ(p.top_k, 50);
  EXPECT_FLOAT_EQ(p.top_p, 1.0f);
  EXPECT_FLOAT_EQ(p.min_p, 0.0f);
}

TEST_F(GenerationConfig, BadValuesNameTheFileAndField) {
  for (const char* bad : {R"({"do_sample": "yes"})", R"({"do_sample": true, "temperature": "hot"})",
                          R"({"do_sample": true, "top_p": 7})", R"([1, 2])", R"({"do_sample": tru)",
                          // top_k past INT_MAX (was an undefined float-to-int conversion), negative,
                          // fractional
                          R"({"do_sample": true, "top_k": 1e30})", R"({"do_sample": true, "top_k": -1})",
                          R"({"do_sample": true, "top_k": 2.5})", R"({"do_sample": true, "top_k": 3e9})"}) {
    const std::string p = Write(bad);
    try {
      SamplingFromGenerationConfig(p);
      FAIL() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
      if (std::string(bad).find("top_k") != std::string::npos)
        EXPECT_NE(std::string(e.what()).find("top_k"), std::string::npos) << e.what();
    }
  }
  // Negative control: the largest top_k an int holds is still a top_k.
  EXPECT_EQ(SamplingFromGenerationConfig(Write(R"({"do_sample": true, "top_k": 2147483647})")).top_k, 2147483647);
}

TEST(EnginePrecision, AutoQuantizesAnUnquantizedCheckpointAndSaysSo) {
  EngineOptions o;
  o.threads = 2;
  o.backend = BackendKind::kCpu;
  const auto e = Engine::Load(std::string(GLANCE_TEST_DATA "/tiny-a"), o);
  EXPECT_EQ(e->info().precision, kAutoQuantization);
  EXPECT_NE(e->info().precision_reason.find("auto"), std::string::npos) << e->info().precision_reason;
  EXPECT_TRUE(e->info().default_sampling.greedy);  // the demo's generation_config: do_sample false
  o.precision = Precision::kQ4;
  const auto q4 = Engine::Load(std::string(GLANCE_TEST_DATA "/tiny-a"), o);
  EXPECT_EQ(q4->info().precision, Precision::kQ4);
  EXPECT_TRUE(q4->info().precision_reason.empty());  // asked explicitly
}

}  // namespace
