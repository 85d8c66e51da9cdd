// The reference check drives the product's prompt path (core/checks/session_run.h): the golden
// conversation sent through a Session passes its gates, and a Session that feeds the model
// anything else fails them — a token dropped from turn 2's render fails "session prompt ids",
// a token lost from the answer the Session feeds fails "session logits".
#include <gtest/gtest.h>

#include "core/checks/check_run.h"
#include "core/checks/gate_table.h"
#include "core/checks/reference_check.h"
#include "core/checks/reference_data.h"
#include "core/checks/session_run.h"
#include "core/engine/engine.h"

using namespace glance;
using namespace glance::checks;

namespace {

const std::string kDir = GLANCE_TEST_DATA "/tiny-a";

struct Fixture {
  ReferenceData ref{kDir};
  std::shared_ptr<const Engine> engine = [] {
    CheckOptions o;
    o.threads = 2;
    return LoadCheckEngine(kDir, o);
  }();
  CheckRun run = RunCheck(ref, engine);
  std::vector<const float*> features = run.images.FeaturePointers(engine->config().text.hidden_size);
};

Fixture& F() {
  static Fixture f;
  return f;
}

GateResult Ids(const SessionRun& run) { return Evaluate(CheckKind::kF32, "session prompt ids", MeasureSessionIds(F().ref, run)); }
GateResult Logits(const SessionRun& run) {
  return Evaluate(CheckKind::kF32, "session logits", MeasureSessionLogits(run, F().run.decode));
}

}  // namespace

TEST(SessionCheck, TheGoldenConversationThroughASessionPasses) {
  const SessionRun& run = F().run.session;
  EXPECT_EQ(run.prompt.ids, F().ref.I64("prompt.input_ids"));
  EXPECT_EQ(run.decode.size(), F().ref.I64("decode.tokens").size());
  EXPECT_EQ(run.turn2.size(), F().ref.I64("turn2.tokens").size());
  EXPECT_EQ(run.turn2.size(), run.turn2_scratch.size());
  const GateResult ids = Ids(run), logits = Logits(run);
  EXPECT_TRUE(ids.passed) << ids.figure;
  EXPECT_TRUE(logits.passed) << logits.figure;
}

TEST(SessionCheck, ATokenDroppedFromTurnTwosRenderFailsTheIdsGate) {
  SessionScript script = SessionScriptFromReference(F().ref);
  ASSERT_EQ(script.turn2_user_text, "What colour is it?");
  script.turn2_user_text.pop_back();  // "?" is one token of the golden's turn 2
  const SessionRun run = RunSession(script, F().engine, F().features);
  ASSERT_EQ(run.turn2_prompt.size() + 1, F().run.session.turn2_prompt.size());
  const GateResult ids = Ids(run);
  EXPECT_FALSE(ids.passed) << ids.figure;
  EXPECT_NE(ids.figure.find("turn 2"), std::string::npos) << ids.figure;
  // The logits gate compares the Session with a pass over the Session's own ids: consistent.
  EXPECT_TRUE(Logits(run).passed);
}

TEST(SessionCheck, ATokenLostFromTheFedAnswerFailsTheLogitsGate) {
  SessionScript script = SessionScriptFromReference(F().ref);
  script.tokens.erase(script.tokens.begin() + 5);  // the Session feeds turn 1's answer without its 6th token
  const SessionRun run = RunSession(script, F().engine, F().features);
  const GateResult logits = Logits(run);
  EXPECT_FALSE(logits.passed) << logits.figure;
  EXPECT_NE(logits.figure.find("1 steps missing"), std::string::npos) << logits.figure;
}
