#include "tests/demo/demo_runs.h"

#include <cstdlib>

#include "core/checks/reference_data.h"
#include "core/lm/language_model.h"
#include "core/lm/mrope.h"
#include "core/text/chat_template.h"
#include "core/text/tokenizer.h"
#include "core/vision/image_preprocessor.h"
#include "core/vision/vision_tower.h"

namespace glance::demo {

const char* const kCaptionPrompt = "Describe this image.";

std::string DemoModelDir() {
  // A candidate checkpoint can be measured before it replaces the committed one.
  if (const char* env = std::getenv("GLANCE_DEMO_TEST_MODEL"); env && *env) return env;
  return std::string(GLANCE_SOURCE_RESOURCES) + "/demo-model";
}

const DemoScenes& Scenes() {
  static const DemoScenes scenes = LoadDemoScenes(std::string(GLANCE_SOURCE_RESOURCES) + "/demo-scenes");
  return scenes;
}

std::shared_ptr<const Engine> LoadDemoEngine(Precision precision, BackendKind backend) {
  EngineOptions o;
  o.threads = 2;
  o.precision = precision;
  o.backend = backend;
  return Engine::Load(DemoModelDir(), o);
}

TurnResult Caption(const std::shared_ptr<const Engine>& engine, const DemoScene& scene, bool capture_attention) {
  Session s(engine);
  return Caption(s, scene, capture_attention);
}

TurnResult Caption(Session& s, const DemoScene& scene, bool capture_attention) {
  s.AttachImage(scene.image_path, ImageMode::kFast);
  GenerateOptions g;
  g.sampling = SamplingParams::Greedy();
  g.max_new_tokens = 96;
  g.capture_attention = capture_attention;
  return s.Send(kCaptionPrompt, g);
}

std::vector<float> AnswerLogits(const Engine& engine, const DemoScene& scene, const std::vector<int32_t>& answer) {
  const ModelConfig& cfg = engine.config();
  const auto pre = engine.preprocessor().Preprocess(scene.image_path, ImageMode::kFast);
  const std::vector<float> features = engine.vision().Forward(pre, engine.pool());
  ChatMessage user;
  user.role = "user";
  user.content = {ContentPart::Image(), ContentPart::Text(kCaptionPrompt)};
  const std::string text = engine.chat_template().Render({user}, ChatTemplateOptions{});
  const int32_t pad = static_cast<int32_t>(cfg.image_token_id);
  const std::vector<int32_t> prompt =
      ExpandPadTokens(engine.tokenizer().Encode(text), pad, {static_cast<int32_t>(pre.merged_h() * pre.merged_w())});
  std::vector<int64_t> ids(prompt.begin(), prompt.end());
  ids.insert(ids.end(), answer.begin(), answer.end());
  const std::vector<lm::ImageGrid> grids = {{pre.merged_h(), pre.merged_w()}};
  const lm::MropePositions pos = lm::ComputeMropePositions(ids, cfg.image_token_id, grids);
  const auto overrides = checks::ImageRowOverrides(ids, cfg.image_token_id, features, cfg.text.hidden_size);
  lm::LmState state = engine.lm().NewState();
  state.rope_delta = pos.rope_delta;
  lm::ForwardInput in;
  in.ids = ids;
  in.overrides = overrides;
  in.positions = pos.pos.data();
  in.all_logits = true;
  lm::ForwardOutput out;
  engine.lm().Forward(in, state, out, engine.pool());
  const int64_t V = out.vocab;
  const int64_t first = static_cast<int64_t>(prompt.size()) - 1;  // the row that predicts answer[0]
  return std::vector<float>(out.logits.begin() + first * V, out.logits.end());
}

}  // namespace glance::demo
