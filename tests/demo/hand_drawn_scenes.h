#pragma once
// A second, independent renderer of shapes-world scenes, for testing the demo model only (issue
// 32): pictures as a person would draw them in a paint program, with OpenCV's anti-aliased
// polygon and circle fill, named CSS colours, objects anywhere in their cell, turned, of any size,
// on plain, two-tone, gradient, textured or noisy backgrounds, sometimes blurred or saved as JPEG.
// It shares only the words with tools/twin (which trains the model): none of its code, drawing
// method, colour values or random numbers. Deterministic by seed.
#include <cstdint>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "core/engine/demo_scenes.h"

namespace glance::demo {

struct DrawnObject {
  std::string shape, colour, size;  // the caption's words
  int cell = 0;                     // 3x3 cell of the centre, row-major (the caption's position)
  double cx = 0, cy = 0;            // centre, pixels
  double radius = 0;                // the shape's circumradius, pixels
  double turn = 0;                  // degrees
  cv::Vec3b rgb;                    // the colour drawn
};

struct DrawnScene {
  uint64_t seed = 0;
  std::vector<std::string> background;  // one colour, or two (top/left first) for a two-tone one
  std::string background_kind;          // plain | two-tone | gradient | texture | noise
  std::vector<DrawnObject> objects;     // in reading order (by cell)
  bool blurred = false;
  int jpeg_quality = 0;                 // 0: saved as PNG
  cv::Mat rgb;                          // kSide x kSide, CV_8UC3, RGB order
  std::vector<std::vector<int>> token_cells;  // per object: the 7x7 image tokens it touches
};

inline constexpr int kSide = 224;

// The scene of `seed`. `vocabulary` gives the words (shapes, colours, sizes, positions); the
// renderer throws glance::Error if it is asked for a shape or colour it cannot draw.
DrawnScene DrawScene(uint64_t seed, const DemoScenes& vocabulary);

// Writes the picture (PNG, or JPEG at the scene's quality) to DIR, its labels beside it
// (drawn-SEED.json: background and each object's words, cell, centre, radius and turn), and returns the scene as the
// demo tests' DemoScene (objects, background, a template-0 caption, one "Is there ...?" question
// whose answer is "yes" or "no").
DemoScene WriteScene(const DrawnScene& scene, const DemoScenes& vocabulary, const std::string& dir);

// The background words the renderer can draw.
const std::vector<std::string>& DrawnBackgrounds();

}  // namespace glance::demo
