// Vision tower throughput (not a test): seconds per VisionTower::Forward for a 224×224 image in
// fast mode and a 640×480 image in detail mode, the two images `glance-cli bench` times.
// Run: build/<dir>/tests/vision/bench_vision MODEL_DIR [threads=2] [reps=3] [precision=q4]
// Prints every repetition, then min and median per image.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/engine/engine.h"
#include "core/vision/image_preprocessor.h"
#include "core/vision/vision_tower.h"

namespace {

std::vector<uint8_t> Gradient(int w, int h) {
  std::vector<uint8_t> rgb(size_t(w) * size_t(h) * 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = rgb.data() + (size_t(y) * size_t(w) + size_t(x)) * 3;
      p[0] = uint8_t((255 * x) / std::max(w - 1, 1));
      p[1] = uint8_t((255 * y) / std::max(h - 1, 1));
      p[2] = uint8_t(((x / 16 + y / 16) % 2) ? 180 : 60);
    }
  return rgb;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_vision MODEL_DIR [threads=2] [reps=3] [precision=q4]\n");
    return 2;
  }
  glance::EngineOptions eo;
  eo.threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 3;
  const auto precision = glance::ParsePrecision(argc > 4 ? argv[4] : "q4");
  if (!precision) {
    std::fprintf(stderr, "bench_vision: precision must be one of %s\n", glance::PrecisionNames().c_str());
    return 2;
  }
  eo.precision = *precision;
  const auto engine = glance::Engine::Load(argv[1], eo);
  struct Case {
    const char* name;
    int w, h;
    glance::vision::ImageMode mode;
  };
  for (const Case& c : {Case{"224x224 fast", 224, 224, glance::vision::ImageMode::kFast},
                        Case{"640x480 detail", 640, 480, glance::vision::ImageMode::kDetail}}) {
    const std::vector<uint8_t> rgb = Gradient(c.w, c.h);
    const glance::vision::PreprocessedImage img =
        engine->preprocessor().PreprocessFromRgb(c.h, c.w, rgb.data(), c.mode);
    std::vector<double> s;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const std::vector<float> out = engine->vision().Forward(img, engine->pool());
      s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      std::printf("vision %-15s (%d patches) rep %d: %.3f s\n", c.name, img.n_patches(), r, s.back());
    }
    std::sort(s.begin(), s.end());
    std::printf("vision %-15s min %.3f s  median %.3f s\n", c.name, s.front(), s[s.size() / 2]);
  }
  return 0;
}
