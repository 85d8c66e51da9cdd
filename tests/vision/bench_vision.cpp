// Vision tower throughput (not a test): seconds per VisionTower::Forward for a 224×224 image in
// fast mode and a 640×480 image in detail mode, the two images `glance-cli bench` times.
// Run: build/<dir>/tests/vision/bench_vision MODEL_DIR [threads=2] [reps=3] [precision=q4]
// With a quantized precision it also prints the image embeddings' cosine against the float32
// tower (the gate of tests/vision/test_vision_quantized.cpp, on this model).
// Prints every repetition (wall and process CPU seconds: on a loaded machine the CPU time of a
// 1-thread run is the steadier figure), then min and median per image.
#include <time.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/engine/engine.h"
#include "core/model/safetensors.h"
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

double CpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
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
  const glance::TensorStore store = glance::TensorStore::OpenFolder(argv[1]);
  const auto float_tower = glance::vision::VisionTower::Load(store, engine->config().vision);
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
      const double c0 = CpuSeconds();
      const std::vector<float> out = engine->vision().Forward(img, engine->pool());
      s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      std::printf("vision %-15s (%d patches) rep %d: %.3f s (cpu %.3f s)\n", c.name, img.n_patches(), r, s.back(),
                  CpuSeconds() - c0);
    }
    if (engine->info().precision == glance::Precision::kQ8 || engine->info().precision == glance::Precision::kQ4) {
      const std::vector<float> a = engine->vision().Forward(img, engine->pool());
      const std::vector<float> b = float_tower->Forward(img, engine->pool());
      double ab = 0, aa = 0, bb = 0;
      for (size_t k = 0; k < a.size(); ++k) {
        ab += double(a[k]) * double(b[k]);
        aa += double(a[k]) * double(a[k]);
        bb += double(b[k]) * double(b[k]);
      }
      std::printf("vision %-15s embeddings cosine against float32: %.7f\n", c.name, ab / std::sqrt(aa * bb));
    }
    std::sort(s.begin(), s.end());
    std::printf("vision %-15s min %.3f s  median %.3f s\n", c.name, s.front(), s[s.size() / 2]);
  }
  return 0;
}
