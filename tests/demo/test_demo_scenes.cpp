// The shipped demo scenes and the caption parser the demo-model tests rely on: every scene's
// reference caption parses back to its labels, and the parser notices a wrong word.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/engine/demo_scenes.h"
#include "core/util/error.h"
#include "tests/demo/answer_parser.h"

namespace glance::demo {
namespace {

const std::string kScenes = std::string(GLANCE_SOURCE_RESOURCES) + "/demo-scenes";

TEST(DemoScenes, LoadsEveryScene) {
  const DemoScenes w = LoadDemoScenes(kScenes);
  ASSERT_GE(w.scenes.size(), 200u);
  EXPECT_GE(w.shapes.size(), 6u);
  EXPECT_GE(w.colours.size(), 8u);
  for (const auto& s : w.scenes) {
    EXPECT_TRUE(std::filesystem::exists(s.image_path)) << s.image_path;
    EXPECT_GE(s.objects.size(), 1u);
    EXPECT_LE(s.objects.size(), 3u);
    EXPECT_EQ(s.questions.size(), 4u);
  }
}

TEST(DemoScenes, SeedPicksTheSameScene) {
  const DemoScenes w = LoadDemoScenes(kScenes);
  EXPECT_EQ(PickDemoScene(w, 7).index, 7);
  EXPECT_EQ(PickDemoScene(w, 7 + w.scenes.size()).index, 7);
}

TEST(DemoScenes, MissingFolderIsAClearError) {
  try {
    LoadDemoScenes("/nonexistent/demo-scenes");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("scenes.json"), std::string::npos) << e.what();
  }
}

TEST(CaptionParser, ReferenceCaptionsParseBackToTheLabels) {
  const DemoScenes w = LoadDemoScenes(kScenes);
  for (const auto& s : w.scenes) {
    const CaptionScore c = ScoreCaption(ParseCaption(s.caption, w), s);
    EXPECT_TRUE(c.shapes_and_colours && c.positions && c.sizes && c.background) << s.index << ": " << s.caption;
  }
}

TEST(CaptionParser, NoticesAWrongWord) {  // negative control
  const DemoScenes w = LoadDemoScenes(kScenes);
  const DemoScene& s = w.scenes.at(0);
  std::string wrong = s.caption;
  const std::string& colour = s.objects[0].colour;
  wrong.replace(wrong.find(colour), colour.size(), colour == "red" ? "blue" : "red");
  EXPECT_FALSE(ScoreCaption(ParseCaption(wrong, w), s).shapes_and_colours) << wrong;
  std::string moved = s.caption;
  const std::string& where = s.objects[0].position;
  moved.replace(moved.find(where), where.size(), s.objects[0].cell == 4 ? "at the top" : "in the centre");
  EXPECT_FALSE(ScoreCaption(ParseCaption(moved, w), s).positions) << moved;
  EXPECT_FALSE(ScoreCaption(ParseCaption("Nothing to see.", w), s).shapes_and_colours);
}

}  // namespace
}  // namespace glance::demo
