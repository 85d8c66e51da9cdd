// Caption presets (core/engine/caption_preset.h, issue 33): the question each style asks, the
// instructions' {placeholders} filled (a missing value and an unused variable refused by name),
// the length and sampling applied to the generation options, and the presets file read and
// written, each bad field one line naming the file, the preset and the field.
#include "core/engine/caption_preset.h"

#include <cstdlib>
#include <functional>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "core/util/error.h"
#include "tests/model/temp_dir.h"

namespace glance {
namespace {

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string File(const std::string& presets) {
  return "{\"glance_caption_presets\": 1, \"presets\": [" + presets + "]}";
}

TEST(CaptionPreset, EachStyleAsksItsOwnQuestion) {
  std::set<std::string> questions;
  for (const CaptionPreset& p : BuiltInCaptionPresets()) {
    const std::string q = CaptionPresetPrompt(p, {});
    EXPECT_EQ(q, CaptionStyleQuestion(p.style));
    questions.insert(q);
  }
  EXPECT_EQ(questions.size(), 4u);
  EXPECT_TRUE(Has(CaptionPresetPrompt(FindCaptionPreset("tags", {}), {}), "tags"));
  EXPECT_TRUE(Has(CaptionPresetPrompt(FindCaptionPreset("json", {}), {}), "JSON"));
}

TEST(CaptionPreset, InstructionsFollowTheQuestionWithPlaceholdersFilled) {
  CaptionPreset p;
  p.name = "portrait";
  p.style = CaptionStyle::kDetailed;
  p.instructions = "  Refer to the person as {name}; mention the {thing}. Again: {name}. Literal {{name}} and {not a name}. ";
  EXPECT_EQ(CaptionPresetPlaceholders(p), (std::vector<std::string>{"name", "thing"}));
  EXPECT_EQ(CaptionPresetPrompt(p, {{"name", "Ada"}, {"thing", "lighting"}}),
            CaptionStyleQuestion(CaptionStyle::kDetailed) +
                " Refer to the person as Ada; mention the lighting. Again: Ada. Literal {name} and {not a name}.");

  const std::string missing = ErrorOf([&] { CaptionPresetPrompt(p, {{"name", "Ada"}}); });
  EXPECT_TRUE(Has(missing, "preset 'portrait'") && Has(missing, "{thing}")) << missing;
  const std::string typo = ErrorOf([&] { CaptionPresetPrompt(p, {{"name", "Ada"}, {"thing", "x"}, {"nmae", "y"}}); });
  EXPECT_TRUE(Has(typo, "{nmae}") && Has(typo, "{name}, {thing}")) << typo;
}

TEST(CaptionPreset, LengthAndSamplingReachTheOptions) {
  GenerateOptions o;
  o.max_new_tokens = 999;
  o.seed = 5;
  CaptionPreset greedy = FindCaptionPreset("tags", {});
  ApplyCaptionPreset(greedy, o);
  EXPECT_EQ(o.max_new_tokens, 80);
  ASSERT_TRUE(o.sampling);
  EXPECT_TRUE(o.sampling->greedy);
  EXPECT_FALSE(o.seed);

  CaptionPreset sampled;
  sampled.name = "warm";
  sampled.max_tokens = 12;
  sampled.temperature = 0.7f;
  sampled.top_p = 0.9f;
  sampled.seed = 42;
  ApplyCaptionPreset(sampled, o);
  EXPECT_EQ(o.max_new_tokens, 12);
  EXPECT_FALSE(o.sampling->greedy);
  EXPECT_FLOAT_EQ(o.sampling->temperature, 0.7f);
  EXPECT_FLOAT_EQ(o.sampling->top_p, 0.9f);
  EXPECT_EQ(o.seed, 42u);
}

TEST(CaptionPreset, FileRoundTripsEveryField) {
  CaptionPreset a;
  a.name = "portrait";
  a.style = CaptionStyle::kDetailed;
  a.max_tokens = 120;
  a.instructions = "Refer to the person as {name}.";
  a.temperature = 0.5f;
  a.top_p = 0.8f;
  a.seed = 7;
  CaptionPreset b;
  b.name = "record";
  b.style = CaptionStyle::kJson;
  b.max_tokens = 200;
  // Properties in the order written, not sorted: the answer's keys come in this order.
  b.schema = R"({"type":"object","properties":{"subject":{"type":"string"},"colour":{"type":"string"}},"required":["subject","colour"]})";
  test::TempDir d;
  const std::string path = d / "sub/presets.json";
  WriteCaptionPresetsFile(path, {a, b});
  const std::vector<CaptionPreset> back = ReadCaptionPresetsFile(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0], a);
  EXPECT_EQ(back[1], b);
  EXPECT_TRUE(ReadCaptionPresetsFile(d / "none.json").empty());
  EXPECT_EQ(FindCaptionPreset("record", back).style, CaptionStyle::kJson);
}

TEST(CaptionPreset, BadFieldsAreOneLineNamingFileAndField) {
  auto error = [](const std::string& presets) { return ErrorOf([&] { ParseCaptionPresets(File(presets), "p.json"); }); };
  struct Case {
    std::string preset, expected;
  };
  const Case cases[] = {
      {R"({"name":"x","style":"long"})", "p.json: preset 1 ('x'): field 'style' must be one of short, detailed, tags, json (found \"long\")"},
      {R"({"name":"x","style":"short","max_tokens":-3})", "p.json: preset 1 ('x'): field 'max_tokens' must be a whole number from 1 to 8192 (found -3)"},
      {R"({"name":"x","style":"short","max_tokens":2.5})", "field 'max_tokens'"},
      {R"({"style":"short"})", "p.json: preset 1: field 'name' is missing"},
      {R"({"name":"  ","style":"short"})", "field 'name' is empty"},
      {R"({"name":"x","style":"short","temperature":3})", "field 'temperature' must be from 0 (greedy) to 2 (found 3)"},
      {R"({"name":"x","style":"short","temperature":"hot"})", "field 'temperature' must be a number"},
      {R"({"name":"x","style":"short","top_p":0})", "field 'top_p'"},
      {R"({"name":"x","style":"short","seed":-1})", "field 'seed'"},
      {R"({"name":"x","style":"short","schema":{"type":"object"}})", "field 'schema' is for style json"},
      {R"({"name":"x","style":"json","schema":{"type":"object","oneOf":[]}})", "field 'schema' is not a schema"},
      {R"({"name":"x","style":"short","lenght":3})", "unknown field 'lenght'"},
      {R"({"name":"short","style":"short"})", "field 'name' 'short' is a built-in preset's name"},
      {R"({"name":"x","style":"short"},{"name":"x","style":"tags"})", "p.json: preset 2 ('x'): field 'name' 'x' is given to two presets"},
      {R"("x")", "p.json: preset 1: is not a JSON object"},
  };
  for (const Case& c : cases) {
    const std::string e = error(c.preset);
    EXPECT_TRUE(Has(e, c.expected)) << c.preset << "\n  gave: " << e;
    EXPECT_FALSE(Has(e, "\n")) << e;
  }
  EXPECT_TRUE(Has(ErrorOf([] { ParseCaptionPresets("{", "p.json"); }), "p.json is not valid JSON"));
  EXPECT_TRUE(Has(ErrorOf([] { ParseCaptionPresets("{\"presets\": []}", "p.json"); }), "not a caption presets file"));
  EXPECT_TRUE(Has(ErrorOf([] { ParseCaptionPresets("{\"glance_caption_presets\": 2, \"presets\": []}", "p.json"); }),
                  "field 'glance_caption_presets' is 2"));
}

TEST(CaptionPreset, UnknownNameListsTheKnownOnes) {
  CaptionPreset mine;
  mine.name = "mine";
  const std::string e = ErrorOf([&] { FindCaptionPreset("nope", {mine}); });
  EXPECT_EQ(e, "unknown preset 'nope'; known: short, detailed, tags, json, mine");
}

TEST(CaptionPreset, DefaultPathFollowsXdgConfigHome) {
  const char* old = std::getenv("XDG_CONFIG_HOME");
  const std::string saved = old ? old : "";
  ::setenv("XDG_CONFIG_HOME", "/tmp/cfg", 1);
  EXPECT_EQ(DefaultCaptionPresetsPath(), "/tmp/cfg/Glance/presets.json");
  if (old) ::setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
  else ::unsetenv("XDG_CONFIG_HOME");
}

}  // namespace
}  // namespace glance
