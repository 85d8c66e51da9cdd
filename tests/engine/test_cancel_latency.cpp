// How soon Stop takes effect during image encoding and prompt processing on a large model
// (issue 10 item 14: within 0.5 s on the 2B shape). Needs a model folder in $GLANCE_CANCEL_MODEL
// (e.g. `glance-cli make-model --shape 2b --out DIR`); skipped without one, since loading a
// 2B model does not belong in every ctest run.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "core/engine/engine.h"
#include "core/engine/session.h"

using namespace glance;
using Clock = std::chrono::steady_clock;

namespace {

constexpr double kLimitS = 0.5;

// Runs `step`, sets the stop flag `after_s` after the first progress report, and returns the
// seconds from setting it to `step` throwing Cancelled (fails the test when it does not).
template <typename Step>
double StopLatency(Step&& step, double after_s) {
  std::atomic<bool> cancel{false};
  std::atomic<bool> started{false};
  StreamCallbacks cb;
  cb.cancel = &cancel;
  cb.on_progress = [&](const Progress&) { started = true; };
  Clock::time_point stopped_at{};
  std::thread stopper([&] {
    while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::duration<double>(after_s));
    stopped_at = Clock::now();
    cancel = true;
  });
  bool was_cancelled = false;
  try {
    step(cb);
  } catch (const Cancelled&) {
    was_cancelled = true;
  }
  const auto done = Clock::now();
  stopper.join();
  EXPECT_TRUE(was_cancelled) << "the step finished before Stop";
  return std::chrono::duration<double>(done - stopped_at).count();
}

TEST(CancelLatency, ImageEncodingAndPromptProcessingStopWithinHalfASecond) {
  const char* dir = std::getenv("GLANCE_CANCEL_MODEL");
  if (!dir || !*dir) GTEST_SKIP() << "set GLANCE_CANCEL_MODEL to a (2B-shaped) model folder";
  EngineOptions o;
  o.backend = BackendKind::kCpu;
  const auto engine = Engine::Load(dir, o);
  Session s(engine);
  // A 1280x960 photo-sized image in detail mode: 4800 patches through every vision block.
  const int w = 1280, h = 960;
  std::vector<uint8_t> rgb(static_cast<size_t>(w) * h * 3);
  for (size_t i = 0; i < rgb.size(); ++i) rgb[i] = static_cast<uint8_t>((i * 2654435761u) >> 24);
  const double image_s = StopLatency(
      [&](const StreamCallbacks& cb) { s.AttachImageRgb(rgb.data(), w, h, w * 3, ImageMode::kDetail, cb); }, 0.3);
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "word" + std::to_string(i) + " ";
  GenerateOptions g;
  g.max_new_tokens = 1;
  const double prompt_s = StopLatency([&](const StreamCallbacks& cb) { s.Send(text, g, cb); }, 1.0);
  std::printf("stop latency on %s (%s): image encoding %.3f s, prompt processing %.3f s\n", dir,
              std::string(Name(engine->info().precision)).c_str(), image_s, prompt_s);
  EXPECT_LT(image_s, kLimitS);
  EXPECT_LT(prompt_s, kLimitS);
  EXPECT_TRUE(s.turns().empty());  // the stopped Send left nothing behind
}

}  // namespace
