#pragma once
// The demo scenes: held-out pictures of the "shapes world" the bundled demo model was trained
// on (tools/twin/shapes_world.py), shipped as PNGs with what is in each (scenes.json), so that
// "Try a demo scene" (GUI) and `glance-cli demo-scene` hand the user a picture the demo model
// can describe, and the demo tests can check its answers.
#include <cstdint>
#include <string>
#include <vector>

namespace glance {

struct DemoObject {
  std::string shape, colour, size;
  int cell = 0;           // 0..8, row-major over a 3x3 grid of the image
  std::string position;   // the caption's words for the cell ("in the top left corner")
  std::vector<int> token_cells;  // the 7x7 image tokens (32-pixel squares, raster) it touches
};

struct DemoQuestion {
  std::string type;  // "colour" | "count" | "where" | "exists"
  std::string question, answer;
};

struct DemoScene {
  int index = 0;
  std::string image_path;               // absolute path of the PNG
  std::vector<std::string> background;  // one colour, or two for a two-tone background
  std::vector<DemoObject> objects;      // in reading order
  std::string caption;                  // a reference caption in one of the templates
  std::vector<DemoQuestion> questions;  // one of each type
};

struct DemoScenes {
  std::string dir;
  std::vector<std::string> shapes, colours, sizes, positions;  // the world's vocabulary
  std::vector<DemoScene> scenes;
};

// $GLANCE_DEMO_SCENES, the installed copy, or the source tree's resources/demo-scenes.
std::string DefaultDemoScenesDir();

// Reads DIR/scenes.json. Throws glance::Error naming the file and what is wrong.
DemoScenes LoadDemoScenes(const std::string& dir);

// The scene a seed names: seed modulo the number of scenes (the same seed, the same scene).
const DemoScene& PickDemoScene(const DemoScenes& scenes, uint64_t seed);

}  // namespace glance
