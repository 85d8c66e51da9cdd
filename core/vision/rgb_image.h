#pragma once
// A decoded image as the preprocessor consumes it: 8-bit RGB, interleaved, row-major.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace glance::vision {

struct RgbImage {
  int height = 0;
  int width = 0;
  std::vector<uint8_t> pixels;  // [height][width][3] RGB

  const uint8_t* at(int y, int x) const { return pixels.data() + (std::size_t(y) * std::size_t(width) + std::size_t(x)) * 3; }
};

}  // namespace glance::vision
