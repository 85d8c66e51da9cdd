// Speculative decoding with the MTP layer (core/engine/speculative.h): greedy answers identical
// to plain decoding on the trained demo model (learned drafts, mostly accepted) and on a
// make-model tiny checkpoint (random drafts, mostly rejected: the rollback path), with k = 1..3,
// across turns, Regenerate and EditLastUser, with attention capture (one map per token, the
// plain run's maps) and with a stop mid-answer.
//
// What "identical" rests on (speculative.h): a verify row does a one-row decode step's
// arithmetic, the projections included (the multi-row GEMVs up to 7 rows). Each run here
// requires the logits of every step to be equal bit for bit, and also reports the smallest
// top-1/top-2 margin of the plain run against the largest difference.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "core/engine/demo_scenes.h"
#include "core/engine/engine.h"
#include "core/engine/session.h"
#include "core/lm/language_model.h"
#include "core/lm/mtp.h"
#include "core/model/random_model.h"
#include "core/text/tokenizer.h"
#include "../model/temp_dir.h"

using namespace glance;

namespace {

std::shared_ptr<const Engine> Load(const std::string& dir, Precision precision = Precision::kF32) {
  EngineOptions o;
  o.threads = 2;
  o.backend = BackendKind::kCpu;
  o.precision = precision;
  return Engine::Load(dir, o);
}

std::shared_ptr<const Engine> Demo() {
  static std::shared_ptr<const Engine> e = Load(DefaultDemoModelDir());
  return e;
}

// make-model --shape tiny (tiny-a's shapes) with its random MTP layer.
std::shared_ptr<const Engine> RandomTiny() {
  static glance::test::TempDir dir;
  static std::shared_ptr<const Engine> e = [] {
    MakeModelOptions o;
    o.out_dir = dir.path();
    o.seed = 11;
    o.threads = 2;
    MakeRandomModel(o);
    return Load(dir.path());
  }();
  return e;
}

GenerateOptions Greedy(int n, int drafts, bool attention = false) {
  GenerateOptions o;
  o.max_new_tokens = n;
  o.sampling = SamplingParams::Greedy();
  o.enable_thinking = false;
  o.capture_attention = attention;
  o.speculative_draft_tokens = drafts;
  return o;
}

struct TurnRun {
  TurnResult r;
  std::vector<std::vector<float>> logits;  // per generated step
};

// With `cancel`: set after the `cancel_after`-th piece of text (a stop mid-answer).
TurnRun Send(Session& s, const std::string& text, const GenerateOptions& o, std::atomic<bool>* cancel = nullptr,
             int cancel_after = -1) {
  TurnRun run;
  StreamCallbacks cb;
  cb.on_logits = [&](std::span<const float> l) { run.logits.emplace_back(l.begin(), l.end()); };
  int pieces = 0;
  if (cancel) {
    cb.cancel = cancel;
    cb.on_text = [&](const std::string&) {
      if (++pieces == cancel_after) cancel->store(true);
    };
  }
  run.r = s.Send(text, o, cb);
  return run;
}

// The exactness evidence: max |Δlogit| between the runs' common steps, and the plain run's
// smallest top-1/top-2 margin.
struct Margins {
  float max_diff = 0.0f, min_margin = 1e30f;
};
Margins Compare(const TurnRun& plain, const TurnRun& spec, int64_t valid_vocab) {
  Margins m;
  const size_t n = std::min(plain.logits.size(), spec.logits.size());
  for (size_t i = 0; i < n; ++i) {
    const auto& a = plain.logits[i];
    const auto& b = spec.logits[i];
    for (size_t j = 0; j < a.size(); ++j) m.max_diff = std::max(m.max_diff, std::fabs(a[j] - b[j]));
    std::vector<float> top(a.begin(), a.begin() + valid_vocab);
    std::partial_sort(top.begin(), top.begin() + 2, top.end(), std::greater<float>());
    m.min_margin = std::min(m.min_margin, top[0] - top[1]);
  }
  return m;
}

void ExpectSame(const TurnRun& plain, const TurnRun& spec, const Engine& e, const std::string& what) {
  EXPECT_EQ(plain.r.tokens, spec.r.tokens) << what;
  EXPECT_EQ(plain.r.text, spec.r.text) << what;
  EXPECT_EQ(plain.r.stop_reason, spec.r.stop_reason) << what;
  const Margins m = Compare(plain, spec, static_cast<int64_t>(e.tokenizer().size()));
  std::printf("%s: %zu tokens, max |dlogit| %.2e, min top-2 margin %.2e, %d/%d drafts accepted, %d weight passes\n",
              what.c_str(), spec.r.tokens.size(), static_cast<double>(m.max_diff), static_cast<double>(m.min_margin), spec.r.stats.accepted,
              spec.r.stats.drafted, spec.r.stats.weight_passes);
  EXPECT_LT(m.max_diff, 1e-3f) << what;
  EXPECT_LT(4 * m.max_diff, m.min_margin) << what << ": a near tie; identity would be luck";
  // Up to 7 rows (k <= 3 always) every projection gives each row bit for bit its one-row result
  // (kernels/cpu/matmul.h; test_gemv_rows), so the verify's logits are plain decoding's exactly.
  EXPECT_EQ(m.max_diff, 0.0f) << what << ": verify logits must be bit-exact";
}

TEST(Speculative, DemoCaptionsIdenticalForOneToThreeDrafts) {
  auto e = Demo();
  ASSERT_TRUE(e->lm().has_mtp());
  const DemoScenes scenes = LoadDemoScenes(DefaultDemoScenesDir());
  for (size_t i = 0; i < 3 && i < scenes.scenes.size(); ++i) {
    for (int k = 1; k <= 3; ++k) {
      Session plain(e), spec(e);
      plain.AttachImage(scenes.scenes[i].image_path);
      spec.AttachImage(scenes.scenes[i].image_path);
      const TurnRun a = Send(plain, "Describe this image.", Greedy(48, 0, true));
      const TurnRun b = Send(spec, "Describe this image.", Greedy(48, k, true));
      ExpectSame(a, b, *e, "scene " + std::to_string(i) + " k=" + std::to_string(k));
      EXPECT_EQ(b.r.stats.draft_tokens, k);
      EXPECT_GT(b.r.stats.drafted, 0);
      // The trained MTP mostly guesses right; a wrongly wired one would not.
      EXPECT_GT(b.r.stats.acceptance_rate(), k == 1 ? 0.6 : 0.4) << "k=" << k;
      EXPECT_LT(b.r.stats.weight_passes, a.r.stats.weight_passes + static_cast<int>(a.r.tokens.size()));
      // Attention capture: one map per emitted token, the plain run's maps.
      ASSERT_EQ(b.r.attention.size(), b.r.tokens.size());
      ASSERT_EQ(a.r.attention.size(), b.r.attention.size());
      for (size_t t = 0; t < a.r.attention.size(); ++t) {
        ASSERT_EQ(a.r.attention[t].token_id, b.r.attention[t].token_id);
        const auto& pa = a.r.attention[t].weights;
        const auto& pb = b.r.attention[t].weights;
        ASSERT_EQ(pa.size(), pb.size());
        for (size_t j = 0; j < pa.size(); ++j) ASSERT_NEAR(pa[j], pb[j], 1e-4) << "token " << t;
        // The DeltaNet hidden attention too, from the verify rows (folded only as far as kept).
        const auto& ha = a.r.attention[t].linear_weights;
        const auto& hb = b.r.attention[t].linear_weights;
        ASSERT_FALSE(ha.empty());
        ASSERT_EQ(a.r.attention[t].linear_layers, b.r.attention[t].linear_layers);
        ASSERT_EQ(ha.size(), hb.size());
        for (size_t j = 0; j < ha.size(); ++j) ASSERT_NEAR(ha[j], hb[j], 1e-4) << "token " << t << " (hidden)";
      }
    }
  }
}

// The drafter's logits with a reduced vocabulary: ids [0, n) exactly the full head's, the rest
// -inf; the model state untouched either way. Negative control: a different n gives a
// different boundary.
TEST(Speculative, ReducedDraftVocabularyScoresTheFirstIdsExactly) {
  auto e = Demo();
  const lm::LanguageModel& lm = e->lm();
  const int64_t V = lm.config().vocab_size, n = V / 3;
  const kernels::WeightRef head = lm::DraftHeadRows(lm.weights().lm_head, n);
  EXPECT_EQ(head.rows, n);
  EXPECT_EQ(head.data, lm.weights().lm_head.data);
  EXPECT_EQ(lm::DraftHeadRows(lm.weights().lm_head, 0).rows, V);
  EXPECT_EQ(lm::DraftHeadRows(lm.weights().lm_head, V + 5).rows, V);
  lm::LmState st = lm.NewState();
  lm.EnableMtp(st);
  const std::vector<int64_t> prompt = {11, 42, 7, 300, 1200, 5};
  lm::ForwardInput in;
  in.ids = prompt;
  lm::ForwardOutput out;
  lm.Forward(in, st, out, e->pool());
  const auto argmax = [](std::span<float> l) -> int64_t { return std::max_element(l.begin(), l.end()) - l.begin(); };
  std::vector<float> full, part, other;
  const int64_t rows_before = st.mtp.n_rows;
  lm.Draft(st, 9, 1, argmax, &full, e->pool(), 0);
  lm.Draft(st, 9, 1, argmax, &part, e->pool(), n);
  lm.Draft(st, 9, 1, argmax, &other, e->pool(), n + 1);
  EXPECT_EQ(st.mtp.n_rows, rows_before);
  ASSERT_EQ(full.size(), static_cast<size_t>(V));
  ASSERT_EQ(part.size(), full.size());
  for (int64_t i = 0; i < V; ++i) {
    if (i < n) {
      ASSERT_EQ(part[size_t(i)], full[size_t(i)]) << "id " << i;
    } else {
      ASSERT_EQ(part[size_t(i)], -std::numeric_limits<float>::infinity()) << "id " << i;
    }
  }
  EXPECT_NE(part, other);
  EXPECT_EQ(other[size_t(n)], full[size_t(n)]);
}

// A reduced draft vocabulary (core/lm/mtp.h): the MTP scores only ids [0, n), the verify all
// of them, so the answer is the plain one whatever n is; a tiny n (byte tokens only) leaves the
// demo model's word tokens undraftable, so fewer drafts are accepted than with the full one.
TEST(Speculative, ReducedDraftVocabularyKeepsTheAnswer) {
  auto e = Demo();
  const DemoScenes scenes = LoadDemoScenes(DefaultDemoScenesDir());
  const int64_t vocab = e->lm().config().vocab_size;
  for (int k = 1; k <= 2; ++k) {
    Session plain(e);
    plain.AttachImage(scenes.scenes[0].image_path);
    const TurnRun a = Send(plain, "Describe this image.", Greedy(48, 0));
    int accepted_full = -1;
    for (int64_t n : {vocab, vocab / 2, int64_t{256}}) {
      Session spec(e);
      spec.AttachImage(scenes.scenes[0].image_path);
      GenerateOptions o = Greedy(48, k);
      o.speculative_draft_vocab = n;
      const TurnRun b = Send(spec, "Describe this image.", o);
      ExpectSame(a, b, *e, "draft vocab " + std::to_string(n) + " k=" + std::to_string(k));
      EXPECT_GT(b.r.stats.drafted, 0);
      if (n == vocab) accepted_full = b.r.stats.accepted;
      if (n == 256) {
        EXPECT_LT(b.r.stats.accepted, accepted_full) << "k=" << k;
      }
    }
  }
}

TEST(Speculative, RandomTinyIdenticalThroughRejections) {
  auto e = RandomTiny();
  ASSERT_TRUE(e->lm().has_mtp());
  for (int k = 1; k <= 3; ++k) {
    Session plain(e), spec(e);
    const TurnRun a = Send(plain, "Hello there, tell me a story.", Greedy(40, 0));
    const TurnRun b = Send(spec, "Hello there, tell me a story.", Greedy(40, k));
    ExpectSame(a, b, *e, "random tiny k=" + std::to_string(k));
    EXPECT_GT(b.r.stats.drafted, 0);
  }
}

TEST(Speculative, AcrossTurnsRegenerateAndEdit) {
  auto e = Demo();
  const DemoScenes scenes = LoadDemoScenes(DefaultDemoScenesDir());
  Session plain(e), spec(e);
  plain.AttachImage(scenes.scenes[0].image_path);
  spec.AttachImage(scenes.scenes[0].image_path);
  ExpectSame(Send(plain, "Describe this image.", Greedy(40, 0)), Send(spec, "Describe this image.", Greedy(40, 2)), *e,
             "turn 1");
  ExpectSame(Send(plain, "What colour is the biggest shape?", Greedy(30, 0)),
             Send(spec, "What colour is the biggest shape?", Greedy(30, 2)), *e, "turn 2");
  const TurnResult ra = plain.Regenerate(Greedy(30, 0));
  const TurnResult rb = spec.Regenerate(Greedy(30, 2));
  EXPECT_EQ(ra.tokens, rb.tokens) << "regenerate";
  const TurnResult ea = plain.EditLastUser("How many shapes are there?", Greedy(30, 0));
  const TurnResult eb = spec.EditLastUser("How many shapes are there?", Greedy(30, 2));
  EXPECT_EQ(ea.tokens, eb.tokens) << "edit";
  // A plain turn after speculative ones (and back) still agrees.
  ExpectSame(Send(plain, "Describe the background.", Greedy(30, 0)), Send(spec, "Describe the background.", Greedy(30, 0)),
             *e, "turn 4 plain");
  ExpectSame(Send(plain, "And the shapes?", Greedy(30, 0)), Send(spec, "And the shapes?", Greedy(30, 3)), *e,
             "turn 5 k=3");
}

TEST(Speculative, StopMidAnswerGivesThePlainPrefixAndTheSessionGoesOn) {
  auto e = Demo();
  const DemoScenes scenes = LoadDemoScenes(DefaultDemoScenesDir());
  for (int stop_at : {1, 2, 5}) {
    Session plain(e), spec(e);
    plain.AttachImage(scenes.scenes[1].image_path);
    spec.AttachImage(scenes.scenes[1].image_path);
    std::atomic<bool> ca{false}, cb{false};
    const TurnRun a = Send(plain, "Describe this image.", Greedy(48, 0, true), &ca, stop_at);
    const TurnRun b = Send(spec, "Describe this image.", Greedy(48, 2, true), &cb, stop_at);
    EXPECT_EQ(a.r.stop_reason, "cancelled");
    EXPECT_EQ(b.r.stop_reason, "cancelled");
    EXPECT_EQ(a.r.tokens, b.r.tokens) << "stop at piece " << stop_at;
    EXPECT_EQ(b.r.attention.size(), b.r.tokens.size());
    ExpectSame(Send(plain, "What colour is it?", Greedy(30, 0)), Send(spec, "What colour is it?", Greedy(30, 2)), *e,
               "after the stop");
  }
}

TEST(Speculative, SamplingUsesTheAcceptanceRule) {
  auto e = Demo();
  const DemoScenes scenes = LoadDemoScenes(DefaultDemoScenesDir());
  // top-k 1 makes p and q one-hot: the rule must then give exactly the greedy answer.
  GenerateOptions one = Greedy(48, 2);
  one.sampling = SamplingParams{};
  one.sampling->greedy = false;
  one.sampling->top_k = 1;
  one.seed = 5;
  Session plain(e), spec(e);
  plain.AttachImage(scenes.scenes[0].image_path);
  spec.AttachImage(scenes.scenes[0].image_path);
  const TurnRun a = Send(plain, "Describe this image.", Greedy(48, 0));
  const TurnRun b = Send(spec, "Describe this image.", one);
  EXPECT_EQ(a.r.tokens, b.r.tokens);
  EXPECT_EQ(b.r.stats.draft_tokens, 2);
  EXPECT_GT(b.r.stats.acceptance_rate(), 0.4);
  // Real sampling (temperature 1): drafts are drawn from q and mostly kept on this model.
  GenerateOptions t1 = one;
  t1.sampling->top_k = 0;
  t1.sampling->temperature = 1.0f;
  t1.speculative_draft_tokens = 1;
  Session s(e);
  s.AttachImage(scenes.scenes[1].image_path);
  const TurnResult r = s.Send("Describe this image.", t1);
  EXPECT_FALSE(r.tokens.empty());
  EXPECT_GT(r.stats.drafted, 0);
  EXPECT_GT(r.stats.accepted, 0);
  std::printf("sampling t=1 k=1: %d/%d drafts accepted\n", r.stats.accepted, r.stats.drafted);
}

TEST(Speculative, CheckpointsWithoutMtpDecodePlainly) {
  auto tiny_a = Load(std::string(GLANCE_TEST_DATA) + "/tiny-a");
  ASSERT_FALSE(tiny_a->lm().has_mtp());
  Session t(tiny_a);
  const TurnResult rt = t.Send("Hi", Greedy(8, 2));
  EXPECT_EQ(rt.stats.draft_tokens, 0);
  EXPECT_EQ(static_cast<int>(rt.tokens.size()), 8);
}

}  // namespace
