// `--speculative auto` (core/engine/speculative_record.h): on only where this machine's record
// says MTP decoding was measured faster at identical output for this model, precision, thread
// count and CPU. No record, a slower one, one for another key, or a damaged file: off (the
// damaged file with a one-line warning, never an exception). End to end: a Session asked for
// auto decodes speculatively only with a faster record on file (a damaged one: plain, the
// warning in the first turn's stats), and the settings registry
// maps off|mtp|auto onto GenerateOptions (auto the default).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "core/engine/demo_scenes.h"
#include "core/engine/engine.h"
#include "core/engine/session.h"
#include "core/engine/speculative_record.h"
#include "core/lm/language_model.h"
#include "core/settings/registry.h"
#include "../model/temp_dir.h"

using namespace glance;

namespace {

SpeculativeRecordKey Key(int threads = 2) {
  SpeculativeRecordKey k;
  k.model = "m1";
  k.model_dir = "/models/m1";
  k.precision = "q4";
  k.threads = threads;
  k.cpu = "Test CPU / AVX2";
  return k;
}

void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(SpeculativeRecord, NoRecordIsOff) {
  glance::test::TempDir dir;
  const SpeculativeAutoChoice c = ChooseSpeculativeAuto(dir.path() + "/none.json", Key());
  EXPECT_EQ(c.draft_tokens, 0);
  EXPECT_TRUE(c.warning.empty());
  EXPECT_EQ(ChooseSpeculativeAuto("", Key()).draft_tokens, 0);  // no cache folder at all
}

TEST(SpeculativeRecord, FasterRecordIsOnSlowerIsOff) {
  glance::test::TempDir dir;
  const std::string path = dir.path() + "/sub/record.json";  // the folder is made on save
  SaveSpeculativeMeasurement(path, Key(), {1, 1.25, 0.9, true});
  SpeculativeAutoChoice c = ChooseSpeculativeAuto(path, Key());
  EXPECT_EQ(c.draft_tokens, 1) << c.reason;
  EXPECT_TRUE(c.warning.empty());
  // Another thread count, precision, model or CPU: not this configuration's record.
  EXPECT_EQ(ChooseSpeculativeAuto(path, Key(4)).draft_tokens, 0);
  SpeculativeRecordKey other = Key();
  other.cpu = "Another CPU";
  EXPECT_EQ(ChooseSpeculativeAuto(path, other).draft_tokens, 0);
  other = Key();
  other.precision = "q8";
  EXPECT_EQ(ChooseSpeculativeAuto(path, other).draft_tokens, 0);
  // k = 2 measured faster still: auto takes the fastest.
  SaveSpeculativeMeasurement(path, Key(), {2, 1.40, 0.8, true});
  EXPECT_EQ(ChooseSpeculativeAuto(path, Key()).draft_tokens, 2);
  // Re-measured slower (same key and k replace the entry): back to k = 1, then off.
  SaveSpeculativeMeasurement(path, Key(), {2, 0.95, 0.8, true});
  EXPECT_EQ(ChooseSpeculativeAuto(path, Key()).draft_tokens, 1);
  SaveSpeculativeMeasurement(path, Key(), {1, 0.97, 0.9, true});
  c = ChooseSpeculativeAuto(path, Key());
  EXPECT_EQ(c.draft_tokens, 0);
  EXPECT_TRUE(c.warning.empty());
  // Faster but the output differed: never on.
  SaveSpeculativeMeasurement(path, Key(), {1, 1.5, 0.9, false});
  EXPECT_EQ(ChooseSpeculativeAuto(path, Key()).draft_tokens, 0);
}

TEST(SpeculativeRecord, DamagedFileIsOffWithOneLineWarning) {
  glance::test::TempDir dir;
  const std::string path = dir.path() + "/record.json";
  const std::string bad[] = {
      "{not json",
      "[]",
      R"({"format": 9, "records": []})",
      R"({"format": 1})",
      R"({"format": 1, "records": [{"model": "m1", "precision": "q4", "threads": "two", "cpu": "Test CPU / AVX2"}]})",
      R"({"format": 1, "records": [{"model": "m1", "precision": "q4", "threads": 2, "cpu": "Test CPU / AVX2",
          "draft_tokens": 7, "speedup": 2.0, "identical_output": true}]})",
      R"({"format": 1, "records": [{"model": "m1", "precision": "q4", "threads": 2, "cpu": "Test CPU / AVX2",
          "draft_tokens": 1, "identical_output": true}]})",
      std::string("\0\1\2", 3),
  };
  for (const std::string& text : bad) {
    Write(path, text);
    SpeculativeAutoChoice c;
    ASSERT_NO_THROW(c = ChooseSpeculativeAuto(path, Key())) << text;
    EXPECT_EQ(c.draft_tokens, 0) << text;
    EXPECT_FALSE(c.warning.empty()) << text;
    EXPECT_EQ(c.warning.find('\n'), std::string::npos) << c.warning;
    EXPECT_NE(c.warning.find(path), std::string::npos) << c.warning;  // names the file
  }
  // Negative control: the same file made valid and faster turns it on.
  Write(path, R"({"format": 1, "records": [{"model": "m1", "precision": "q4", "threads": 2, "cpu": "Test CPU / AVX2",
          "draft_tokens": 1, "speedup": 1.3, "identical_output": true}]})");
  EXPECT_EQ(ChooseSpeculativeAuto(path, Key()).draft_tokens, 1);
  // Saving over a damaged file starts it afresh.
  Write(path, "{not json");
  SaveSpeculativeMeasurement(path, Key(), {1, 1.2, 0.9, true});
  EXPECT_EQ(ChooseSpeculativeAuto(path, Key()).draft_tokens, 1);
}

TEST(SpeculativeRecord, RegistryHasAutoAsTheDefault) {
  settings::Values v = settings::Defaults();
  EXPECT_EQ(settings::GetString(v, "speculative"), "auto");
  GenerateOptions o = settings::ToGenerateOptions(v);
  EXPECT_TRUE(o.speculative_auto);
  EXPECT_EQ(o.speculative_draft_tokens, 0);
  settings::ApplyFlag(v, "speculative", "mtp");
  o = settings::ToGenerateOptions(v);
  EXPECT_FALSE(o.speculative_auto);
  EXPECT_EQ(o.speculative_draft_tokens, 1);
  settings::ApplyFlag(v, "speculative", "off");
  o = settings::ToGenerateOptions(v);
  EXPECT_FALSE(o.speculative_auto);
  EXPECT_EQ(o.speculative_draft_tokens, 0);
  EXPECT_THROW(settings::ApplyFlag(v, "speculative", "sometimes"), Error);
}

// A Session with speculative_auto on the demo model (which has an MTP layer): plain decoding
// without a record, speculative with a faster one, plain again with a damaged one — the record
// read from the cache folder (XDG_CACHE_HOME), where bench-speculative writes it.
TEST(SpeculativeRecord, SessionFollowsTheRecord) {
  glance::test::TempDir cache;
  ::setenv("XDG_CACHE_HOME", cache.path().c_str(), 1);
  EngineOptions eo;
  eo.threads = 2;
  eo.backend = BackendKind::kCpu;
  eo.precision = Precision::kF32;
  auto engine = Engine::Load(DefaultDemoModelDir(), eo);
  ASSERT_TRUE(engine->lm().has_mtp());
  const DemoScenes scenes = LoadDemoScenes(DefaultDemoScenesDir());
  GenerateOptions g;
  g.max_new_tokens = 12;
  g.sampling = SamplingParams::Greedy();
  g.enable_thinking = false;
  g.capture_attention = false;
  g.speculative_auto = true;
  auto run = [&] {
    Session s(engine);
    s.AttachImage(scenes.scenes[0].image_path);
    return s.Send("Describe this image.", g);
  };
  const TurnResult plain = run();
  EXPECT_EQ(plain.stats.draft_tokens, 0);
  const std::string path = DefaultSpeculativeRecordPath();
  ASSERT_EQ(path.rfind(cache.path(), 0), 0u) << path;
  SaveSpeculativeMeasurement(path, SpeculativeRecordKeyFor(*engine), {1, 1.2, 0.99, true});
  const TurnResult spec = run();
  EXPECT_EQ(spec.stats.draft_tokens, 1);
  EXPECT_GT(spec.stats.drafted, 0);
  EXPECT_EQ(spec.tokens, plain.tokens);
  EXPECT_TRUE(spec.stats.speculative_warning.empty()) << spec.stats.speculative_warning;
  Write(path, "{damaged");
  // A damaged record: plain decoding, and the first turn's stats carry the one-line warning
  // (what the GUI shows in its notice); the session's next turn does not repeat it.
  Session s(engine);
  s.AttachImage(scenes.scenes[0].image_path);
  const TurnResult first = s.Send("Describe this image.", g);
  EXPECT_EQ(first.stats.draft_tokens, 0);
  EXPECT_NE(first.stats.speculative_warning.find(path), std::string::npos) << first.stats.speculative_warning;
  EXPECT_EQ(first.stats.speculative_warning.find('\n'), std::string::npos);
  const TurnResult second = s.Send("And the colour?", g);
  EXPECT_TRUE(second.stats.speculative_warning.empty()) << second.stats.speculative_warning;
  ::unsetenv("XDG_CACHE_HOME");
}

}  // namespace
