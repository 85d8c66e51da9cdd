// `glance-cli caption DIR --preset NAME` on the demo model (issue 33): the preset's question (with
// its {placeholders} filled by --var) is what each image is asked, its length limits the captions,
// a json-style preset writes JSON objects following its schema, the desktop app's saved presets
// are found; an unknown preset lists the known names and every bad flag or file is one line naming
// it, before the model loads.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

#include <gtest/gtest.h>

#include "core/engine/caption_preset.h"
#include "tests/cli/cli_process.h"
#include "tests/model/temp_dir.h"

namespace glance::test {
namespace {

namespace fs = std::filesystem;

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// The captions of a .jsonl output, by file name.
std::map<std::string, nlohmann::json> Captions(const std::string& jsonl) {
  std::map<std::string, nlohmann::json> out;
  std::istringstream in(Read(jsonl));
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) {
      const auto row = nlohmann::json::parse(line);
      out[row["file"].get<std::string>()] = row["caption"];
    }
  return out;
}

// Points the saved presets ($XDG_CONFIG_HOME/Glance/presets.json) at a test folder while alive.
class ConfigHome {
 public:
  explicit ConfigHome(const std::string& dir) {
    if (const char* old = std::getenv("XDG_CONFIG_HOME")) old_ = old;
    ::setenv("XDG_CONFIG_HOME", dir.c_str(), 1);
  }
  ~ConfigHome() {
    if (old_) ::setenv("XDG_CONFIG_HOME", old_->c_str(), 1);
    else ::unsetenv("XDG_CONFIG_HOME");
  }

 private:
  std::optional<std::string> old_;
};

const char* kPresetFile = R"({"glance_caption_presets": 1, "presets": [
  {"name": "person", "style": "short", "max_tokens": 1, "instructions": "Refer to the person as {name}."},
  {"name": "colour", "style": "json", "max_tokens": 40,
   "schema": {"type": "object", "properties": {"colour": {"enum": ["red", "green", "blue", "yellow"]}},
              "required": ["colour"], "additionalProperties": false}}]})";

TEST(CliCaptionPreset, BadPresetFlagsAreOneLineBeforeTheModelLoads) {
  TempDir d;
  ConfigHome config(d / "config");
  fs::copy_file(std::string(GLANCE_SOURCE_RESOURCES) + "/demo-image.png", d / "a.png");
  std::ofstream(d / "presets.json") << kPresetFile;
  std::ofstream(d / "bad.json") << R"({"glance_caption_presets": 1, "presets": [{"name": "x", "style": "long"}]})";
  fs::create_directories(d / "config/Glance");
  std::ofstream(d / "config/Glance/presets.json")
      << R"({"glance_caption_presets": 1, "presets": [{"name": "saved", "style": "tags"}]})";
  const std::string file = d / "presets.json";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--preset", "nope", "--preset-file", file},
       "glance-cli caption: --preset: unknown preset 'nope'; known: short, detailed, tags, json, person, colour, saved"},
      {{"--preset", "person", "--preset-file", file}, "--preset person uses {name}: give --var name=VALUE"},
      {{"--preset", "person", "--preset-file", file, "--var", "name=Ada", "--var", "place=Rome"},
       "--var: preset 'person' has no {place} in its instructions (it uses {name})"},
      {{"--preset", "person", "--preset-file", file, "--var", "name"}, "--var 'name': give name=VALUE"},
      {{"--preset", "x", "--preset-file", d / "bad.json"},
       "--preset-file: " + d / "bad.json" + ": preset 1 ('x'): field 'style' must be one of short, detailed, tags, json"},
      {{"--preset", "x", "--preset-file", d / "missing.json"}, "--preset-file: " + d / "missing.json" + ": no such file"},
      {{"--preset", "short", "--prompt", "Hi"}, "--prompt and --preset both say what to ask"},
      {{"--var", "name=Ada"}, "--var is for --preset NAME"},
      {{"--preset-file", file}, "--preset-file is for --preset NAME"},
      {{"--preset", "tags", "--json-schema", d / "schema.json"},
       "--json-schema is for a preset of style json; --preset tags is style tags"},
  };
  std::ofstream(d / "schema.json") << R"({"type":"object"})";
  for (const auto& [flags, expected] : cases) {
    std::vector<std::string> args = {"caption", d.path(), "--out", d / "c.jsonl"};
    args.insert(args.end(), flags.begin(), flags.end());
    CliProcess p(args);
    EXPECT_EQ(p.Wait(60), 1) << expected;
    EXPECT_NE(p.err.find(expected), std::string::npos) << p.err;
    EXPECT_EQ(Lines(p.err), 1) << p.err;
    EXPECT_EQ(p.err.find("demo model"), std::string::npos) << "refused only after loading the model: " << p.err;
  }
  EXPECT_FALSE(fs::exists(d / "c.jsonl"));
}

TEST(CliCaptionPreset, ThePresetSetsTheQuestionTheLengthAndJson) {
  TempDir d;
  ConfigHome config(d / "config");
  fs::create_directories(d / "images");
  const std::string images = d / "images";
  fs::copy_file(std::string(GLANCE_SOURCE_RESOURCES) + "/demo-image.png", d / "images/a.png");
  std::ofstream(d / "presets.json") << kPresetFile;
  auto run = [&](const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> args = {"caption", images, "--out", d / out};
    args.insert(args.end(), extra.begin(), extra.end());
    auto p = std::make_unique<CliProcess>(args);
    EXPECT_EQ(p->Wait(300), 0) << p->err;
    return p;
  };

  // The built-in "short": its question, greedy; the caption is a sentence of several tokens.
  auto plain = run("short.jsonl", {"--preset", "short"});
  EXPECT_NE(plain->err.find("preset 'short': \"" + CaptionStyleQuestion(CaptionStyle::kShort) +
                            "\" (at most 60 tokens, greedy)"),
            std::string::npos)
      << plain->err;
  const std::string sentence = Captions(d / "short.jsonl").at("a.png").get<std::string>();

  // A preset from --preset-file with a placeholder: the question ends with the filled instruction,
  // and its length (1 token) cuts the caption short.
  auto person = run("person.jsonl", {"--preset", "person", "--preset-file", d / "presets.json", "--var", "name=Ada"});
  EXPECT_NE(person->err.find("preset 'person': \"" + CaptionStyleQuestion(CaptionStyle::kShort) +
                             " Refer to the person as Ada.\" (at most 1 token,"),
            std::string::npos)
      << person->err;
  const std::string cut = Captions(d / "person.jsonl").at("a.png").get<std::string>();
  EXPECT_LT(cut.size(), sentence.size()) << "one token: '" << cut << "', sixty: '" << sentence << "'";
  // --max-tokens given on the command line wins over the preset's length.
  auto longer = run("longer.jsonl", {"--preset", "person", "--preset-file", d / "presets.json", "--var", "name=Ada",
                                     "--max-tokens", "60"});
  EXPECT_NE(longer->err.find("(at most 60 tokens, greedy)"), std::string::npos) << longer->err;

  // A json-style preset saved in the desktop app's file: each caption is a JSON object of its schema.
  fs::create_directories(d / "config/Glance");
  fs::copy_file(d / "presets.json", d / "config/Glance/presets.json");
  auto json = run("colour.jsonl", {"--preset", "colour"});
  EXPECT_NE(json->err.find("preset 'colour': \"" + CaptionStyleQuestion(CaptionStyle::kJson)), std::string::npos)
      << json->err;
  const nlohmann::json caption = Captions(d / "colour.jsonl").at("a.png");
  ASSERT_FALSE(caption.is_null()) << json->err;
  ASSERT_TRUE(caption.is_object()) << caption.dump();
  ASSERT_EQ(caption.size(), 1u) << caption.dump();
  const std::string colour = caption.at("colour").get<std::string>();
  EXPECT_TRUE(colour == "red" || colour == "green" || colour == "blue" || colour == "yellow") << caption.dump();
}

// A sampling preset: the same seed gives the same caption, and one image takes a preset too.
TEST(CliCaptionPreset, ASamplingPresetWithASeedRepeatsItselfOnOneImage) {
  TempDir d;
  ConfigHome config(d / "config");
  fs::copy_file(std::string(GLANCE_SOURCE_RESOURCES) + "/demo-image.png", d / "a.png");
  std::ofstream(d / "presets.json") << R"({"glance_caption_presets": 1, "presets": [
    {"name": "warm", "style": "short", "max_tokens": 30, "temperature": 1.5, "top_p": 0.95, "seed": 11}]})";
  auto once = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"caption", d / "a.png", "--preset", "warm", "--preset-file", d / "presets.json"};
    args.insert(args.end(), extra.begin(), extra.end());
    CliProcess p(args);
    EXPECT_EQ(p.Wait(300), 0) << p.err;
    EXPECT_NE(p.err.find("preset 'warm': \"" + CaptionStyleQuestion(CaptionStyle::kShort) + "\" (at most 30 tokens, "),
              std::string::npos)
        << p.err;
    return std::make_pair(p.out, p.err);
  };
  const auto [first, first_err] = once({});
  EXPECT_NE(first_err.find("temperature 1.5, top-p 0.95, seed 11)"), std::string::npos) << first_err;
  EXPECT_EQ(once({}).first, first);
  EXPECT_FALSE(first.empty());
  // --seed on the command line wins over the preset's.
  const auto [other, other_err] = once({"--seed", "12", "--sampling", "custom", "--temperature", "1.5"});
  EXPECT_NE(other_err.find("seed 12)"), std::string::npos) << other_err;
}

}  // namespace
}  // namespace glance::test
