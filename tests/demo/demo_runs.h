#pragma once
// Running the demo model over the demo scenes through the engine, shared by the demo tests.
#include <memory>
#include <string>
#include <vector>

#include "core/engine/demo_scenes.h"
#include "core/engine/engine.h"
#include "core/engine/session.h"

namespace glance::demo {

// The committed demo model (the source tree's, not $GLANCE_DEMO_MODEL; $GLANCE_DEMO_TEST_MODEL
// measures a candidate instead) and scenes.
std::string DemoModelDir();
const DemoScenes& Scenes();

std::shared_ptr<const Engine> LoadDemoEngine(Precision precision, BackendKind backend = BackendKind::kCpu);

// One greedy caption of a scene ("Describe this image.", the template's default, no thinking).
TurnResult Caption(const std::shared_ptr<const Engine>& engine, const DemoScene& scene, bool capture_attention);
// The same in the caller's session (e.g. to ask for the turn's attention rollout after).
TurnResult Caption(Session& session, const DemoScene& scene, bool capture_attention);

// Logits [rows][vocab] that the model gives, teacher-forced, for each token of `answer` and the
// stop token after it, following the caption prompt of `scene`.
std::vector<float> AnswerLogits(const Engine& engine, const DemoScene& scene, const std::vector<int32_t>& answer);

}  // namespace glance::demo
