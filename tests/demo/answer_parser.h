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

// An answer equals the expected one up to surrounding whitespace.
bool SameAnswer(const std::string& got, const std::string& want);

}  // namespace glance::demo
