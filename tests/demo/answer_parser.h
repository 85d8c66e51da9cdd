#pragma once
// Reads the demo model's answers back into facts, by the templates of the shapes world
// (tools/twin/shapes_world.py: caption templates "a small red circle in the top left corner",
// "on a blue and white background"). Words come from scenes.json, not from this file.
#include <string>
#include <vector>

#include "core/engine/demo_scenes.h"

namespace glance::demo {

struct ParsedObject {
  std::string size, colour, shape;
  int cell = -1;
};

struct ParsedCaption {
  std::vector<ParsedObject> objects;    // in the order the caption names them
  std::vector<std::string> background;  // empty when the caption names none
};

ParsedCaption ParseCaption(const std::string& text, const DemoScenes& world);

// Per-scene verdicts for one caption.
struct CaptionScore {
  bool shapes_and_colours = false;  // exactly the scene's (shape, colour) pairs, no more, no fewer
  bool positions = false;           // every object named at its cell
  bool sizes = false;               // every object named with its size
  bool background = false;          // the background colour(s), in order
};
CaptionScore ScoreCaption(const ParsedCaption& parsed, const DemoScene& truth);

// The caption is one whole sentence of one of the three templates (shapes_world.caption): it does
// not stop mid-phrase ("a large green square in the on a whit...") nor run on.
bool IsCompleteCaption(const std::string& text, const DemoScenes& world);

// The verdict of an answer to "Is there ...?": "yes" / "no" as it opens ("Yes, there is ...") or
// closes ("The square is blue, so no."); "" when it says neither.
std::string ExistsVerdict(const std::string& answer);

// An answer equals the expected one up to surrounding whitespace.
bool SameAnswer(const std::string& got, const std::string& want);

}  // namespace glance::demo
