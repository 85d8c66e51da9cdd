// Session behaviour on the bundled demo model: multi-turn continuation equals a from-scratch
// run of the template's render, regenerate/edit restore snapshots, stop and limits hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <atomic>
#include <filesystem>
#include <fstream>

#include "core/engine/engine.h"
#include "core/engine/prompt_stream.h"
#include "core/engine/sampler.h"
#include "core/engine/session.h"
#include "core/lm/language_model.h"
#include "core/text/chat_template.h"
#include "core/text/tokenizer.h"
#include "core/util/error.h"

using namespace glance;

namespace {

std::shared_ptr<const Engine> DemoEngine() {
  static std::shared_ptr<const Engine> e = [] {
    EngineOptions o;
    o.threads = 2;
    o.backend = BackendKind::kCpu;
    o.precision = Precision::kF32;  // the reference path the scratch runs below compare with
    return Engine::Load(std::string(GLANCE_TEST_DATA "/tiny-a"), o);
  }();
  return e;
}

GenerateOptions Greedy(int n) {
  GenerateOptions o;
  o.max_new_tokens = n;
  o.sampling = SamplingParams::Greedy();
  o.enable_thinking = false;
  return o;
}

// Greedy answer computed directly by the language model from the template's render of the
// whole conversation (text only), prefilled from scratch.
std::vector<int32_t> ScratchGreedy(const Engine& e, const std::vector<ChatMessage>& msgs, int n) {
  ChatTemplateOptions o;
  o.enable_thinking = false;
  const auto ids32 = e.tokenizer().Encode(e.chat_template().Render(msgs, o));
  std::vector<int64_t> ids(ids32.begin(), ids32.end());
  lm::LmState st = e.lm().NewState();
  lm::ForwardOutput out;
  lm::ForwardInput in;
  in.ids = ids;
  e.lm().Forward(in, st, out, e.pool());
  std::vector<int32_t> gen;
  for (int i = 0; i < n; ++i) {
    const int32_t t = Argmax(out.last(), static_cast<int64_t>(e.tokenizer().size()));
    if (std::find(e.stop_ids().begin(), e.stop_ids().end(), t) != e.stop_ids().end()) break;
    gen.push_back(t);
    const int64_t id = t;
    lm::ForwardInput d;
    d.ids = std::span<const int64_t>(&id, 1);
    e.lm().Forward(d, st, out, e.pool());
  }
  return gen;
}

}  // namespace

TEST(Session, SecondTurnEqualsAFromScratchRunOfTheRenderedConversation) {
  auto e = DemoEngine();
  Session s(e);
  const TurnResult t1 = s.Send("Hello there.", Greedy(12));
  const TurnResult t2 = s.Send("Tell me more.", Greedy(12));
  ASSERT_FALSE(t1.tokens.empty());
  std::vector<ChatMessage> msgs = {ChatMessage::FromText("user", "Hello there."),
                                   ChatMessage::FromText("assistant", t1.text),
                                   ChatMessage::FromText("user", "Tell me more.")};
  EXPECT_EQ(t2.tokens, ScratchGreedy(*e, msgs, 12));
  // Negative control: the same check against the wrong history disagrees.
  msgs[1] = ChatMessage::FromText("assistant", "Something else entirely.");
  EXPECT_NE(t2.tokens, ScratchGreedy(*e, msgs, 12));
  EXPECT_EQ(s.turns().size(), 2u);
  EXPECT_GT(s.snapshot_bytes(), 0u);
}

TEST(Session, RegenerateAndEditRestoreSnapshots) {
  auto e = DemoEngine();
  Session s(e);
  s.AttachImage(DefaultDemoImagePath());
  const TurnResult a = s.Send("Describe this image.", Greedy(10));
  const TurnResult b = s.Regenerate(Greedy(10));
  EXPECT_EQ(a.tokens, b.tokens);                // greedy from the same snapshot
  // Only the generation prompt is prefilled again.
  const auto gen_prompt = e->tokenizer().Encode(e->chat_template().GenerationPrompt(false));
  EXPECT_EQ(b.stats.prompt_tokens, static_cast<int>(gen_prompt.size()));
  const TurnResult c = s.EditLastUser("Describe this image.", Greedy(10));
  EXPECT_EQ(a.tokens, c.tokens);                // same message, same answer
  const TurnResult d = s.EditLastUser("What is shown?", Greedy(10));
  EXPECT_NE(a.tokens, d.tokens);
  ASSERT_EQ(s.turns().size(), 1u);
  EXPECT_EQ(s.turns()[0].user_text, "What is shown?");
  EXPECT_EQ(s.turns()[0].image_indices.size(), 1u);  // the edited message keeps its image
  // Sampled regeneration with a seed is reproducible...
  GenerateOptions sampled = Greedy(10);
  sampled.sampling->greedy = false;
  sampled.sampling->temperature = 1.0f;
  sampled.seed = 7;
  const TurnResult s1 = s.Regenerate(sampled);
  EXPECT_EQ(s1.tokens, s.Regenerate(sampled).tokens);
  EXPECT_EQ(s1.stats.seed, std::optional<uint64_t>(7));
  // ...and without one every turn draws a fresh seed, so Regenerate gives a new answer.
  sampled.seed.reset();
  const TurnResult f1 = s.Regenerate(sampled), f2 = s.Regenerate(sampled);
  ASSERT_TRUE(f1.stats.seed && f2.stats.seed);
  EXPECT_NE(*f1.stats.seed, *f2.stats.seed);
  EXPECT_NE(f1.tokens, f2.tokens);
  // Greedy turns draw no seed.
  EXPECT_FALSE(s.Regenerate(Greedy(2)).stats.seed.has_value());
}

TEST(Session, ImageTurnProducesOneAttentionMapPerTokenOnTheGrid) {
  auto e = DemoEngine();
  Session s(e);
  const ImageInfo info = s.AttachImage(DefaultDemoImagePath());
  EXPECT_EQ(info.grid_w, 7);
  EXPECT_EQ(info.grid_h, 7);
  EXPECT_EQ(info.sha256.size(), 64u);
  int streamed = 0;
  StreamCallbacks cb;
  cb.on_attention = [&](const AttentionMap&) { ++streamed; };
  const TurnResult r = s.Send("Describe this image.", Greedy(8), cb);
  ASSERT_EQ(r.attention.size(), r.tokens.size());
  EXPECT_EQ(streamed, static_cast<int>(r.tokens.size()));
  for (const auto& m : r.attention) {
    EXPECT_EQ(m.grid_h * m.grid_w, 49);
    EXPECT_EQ(m.layers, (std::vector<int>{3, 7}));
    float sum = 0;
    for (float v : m.mean) sum += v;
    EXPECT_GT(sum, 0.0f);
    EXPECT_LE(sum, 1.0f + 1e-5f);  // a part of a softmax row
    // The DeltaNet layers' hidden attention (docs/qwen35.md §2.9): every one, every value head.
    EXPECT_EQ(m.linear_layers, (std::vector<int>{0, 1, 2, 4, 5, 6}));
    EXPECT_EQ(m.linear_heads, 4);
    EXPECT_EQ(m.linear_weights.size(), 6u * 4u * 49u);
  }
  EXPECT_FALSE(r.words.empty());
  EXPECT_EQ(r.stats.image_tokens, 49);
  EXPECT_GT(r.stats.prompt_tokens, 49);
  bool has_vision = false;
  for (const auto& st : r.stats.stages) has_vision |= st.name == "vision";
  EXPECT_TRUE(has_vision);
}

TEST(Session, DeltaNetMapsNeedTheImagePrefilledWithCaptureOn) {
  auto e = DemoEngine();
  Session s(e);
  s.AttachImage(DefaultDemoImagePath());
  GenerateOptions off = Greedy(3);
  off.capture_attention = false;
  const TurnResult r0 = s.Send("Describe this image.", off);
  EXPECT_TRUE(r0.attention.empty());
  // The image's rows went by untracked: the softmax maps come, the DeltaNet ones cannot.
  const TurnResult r1 = s.Send("What colour is it?", Greedy(3));
  ASSERT_FALSE(r1.attention.empty());
  EXPECT_EQ(r1.attention[0].layers, (std::vector<int>{3, 7}));
  EXPECT_TRUE(r1.attention[0].linear_layers.empty());
  // Control: the same conversation with capture on throughout has them in its second turn.
  Session t(e);
  t.AttachImage(DefaultDemoImagePath());
  t.Send("Describe this image.", Greedy(3));
  const TurnResult r2 = t.Send("What colour is it?", Greedy(3));
  ASSERT_FALSE(r2.attention.empty());
  EXPECT_EQ(r2.attention[0].linear_layers.size(), 6u);
}

TEST(Session, CancelStopsBeforeTheNextToken) {
  auto e = DemoEngine();
  Session s(e);
  std::atomic<bool> cancel{false};
  StreamCallbacks cb;
  int pieces = 0;
  cb.on_text = [&](const std::string&) {
    if (++pieces == 3) cancel = true;
  };
  cb.cancel = &cancel;
  const TurnResult r = s.Send("Count to one hundred.", Greedy(200), cb);
  EXPECT_EQ(r.stop_reason, "cancelled");
  EXPECT_LE(r.tokens.size(), 4u);
}

TEST(Session, BadInputIsAClearErrorAndLosesNothing) {
  auto e = DemoEngine();
  Session s(e);
  const auto dir = std::filesystem::temp_directory_path() / "glance-session-test";
  std::filesystem::create_directories(dir);
  const auto txt = (dir / "notes.txt").string();
  std::ofstream(txt) << "not an image";
  EXPECT_THROW(s.AttachImage(txt), Error);
  EXPECT_THROW(s.AttachImage((dir / "missing.png").string()), Error);
  EXPECT_TRUE(s.images().empty());
  EXPECT_THROW(s.Send("", Greedy(4)), Error);
  EXPECT_THROW(s.Regenerate(Greedy(4)), Error);
  // A prompt past the context: refused, the conversation unchanged.
  s.Send("Hi.", Greedy(3));
  try {
    s.Send(std::string(static_cast<size_t>(s.context_limit()) + 10, '7'), Greedy(3));
    FAIL() << "expected a context error";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("context"), std::string::npos) << err.what();
  }
  EXPECT_EQ(s.turns().size(), 1u);
  EXPECT_EQ(s.Send("Still here?", Greedy(3)).stop_reason.empty(), false);
  std::filesystem::remove_all(dir);
}

// A long prompt is processed in chunks with progress; Stop during it throws Cancelled and
// leaves the session as it was, so the same message afterwards answers as in a fresh session.
TEST(Session, StopDuringPromptProcessingRestoresTheSession) {
  auto e = DemoEngine();
  std::string long_text;
  for (int i = 0; i < 400; ++i) long_text += "word" + std::to_string(i) + " ";
  Session fresh(e);
  fresh.Send("Hi.", Greedy(3));
  const TurnResult want = fresh.Send(long_text, Greedy(6));

  Session s(e);
  s.Send("Hi.", Greedy(3));
  const int context_before = s.context_tokens();
  std::atomic<bool> cancel{false};
  std::vector<Progress> seen;
  StreamCallbacks cb;
  cb.cancel = &cancel;
  cb.on_progress = [&](const Progress& p) {
    seen.push_back(p);
    cancel = true;  // stop after the first chunk
  };
  EXPECT_THROW(s.Send(long_text, Greedy(6), cb), Cancelled);
  ASSERT_EQ(seen.size(), 1u);  // one chunk ran, then the stop was honoured
  EXPECT_EQ(seen[0].stage, Progress::Stage::kPrompt);
  EXPECT_GT(seen[0].done, 0);
  EXPECT_LT(seen[0].done, seen[0].total);
  EXPECT_EQ(s.turns().size(), 1u);
  EXPECT_EQ(s.context_tokens(), context_before);
  // Negative control of the progress: without a stop it runs to the total.
  std::vector<Progress> all;
  StreamCallbacks progress_only;
  progress_only.on_progress = [&](const Progress& p) { all.push_back(p); };
  const TurnResult got = s.Send(long_text, Greedy(6), progress_only);
  EXPECT_EQ(got.tokens, want.tokens);
  ASSERT_GT(all.size(), 1u);  // chunked
  EXPECT_EQ(all.back().done, all.back().total);
  for (size_t i = 1; i < all.size(); ++i) {
    EXPECT_GE(all[i].done, all[i - 1].done);
    EXPECT_EQ(all[i].total, all[0].total);  // one total for the turn, not one per prefill
  }
  // The total is the turn's prompt as the stats count it, the generation prompt included
  // (the bar read "62 of 62" beside "prompt 71 tok").
  EXPECT_EQ(all.back().total, got.stats.prompt_tokens);
}

TEST(Session, ImageEncodingReportsEveryBlockAndStops) {
  auto e = DemoEngine();
  Session s(e);
  std::vector<Progress> seen;
  StreamCallbacks cb;
  cb.on_progress = [&](const Progress& p) { seen.push_back(p); };
  s.AttachImage(DefaultDemoImagePath(), ImageMode::kFast, cb);
  const int depth = static_cast<int>(e->config().vision.depth);
  ASSERT_EQ(seen.size(), static_cast<size_t>(depth + 1));
  for (int b = 0; b <= depth; ++b) {
    EXPECT_EQ(seen[static_cast<size_t>(b)].stage, Progress::Stage::kImage);
    EXPECT_EQ(seen[static_cast<size_t>(b)].done, b);
    EXPECT_EQ(seen[static_cast<size_t>(b)].total, depth);
  }
  std::atomic<bool> cancel{false};
  cb.cancel = &cancel;
  cb.on_progress = [&](const Progress& p) {
    if (p.done == 1) cancel = true;
  };
  EXPECT_THROW(s.AttachImage(DefaultDemoImagePath(), ImageMode::kFast, cb), Cancelled);
  EXPECT_EQ(s.images().size(), 1u);  // the first image only
}

// A saved conversation taken up by a new session continues exactly as the live one would:
// the next turn's logits are bitwise equal.
TEST(Session, ContinuingASavedConversationEqualsTheLiveOne) {
  auto e = DemoEngine();
  Session live(e);
  live.AttachImage(DefaultDemoImagePath());
  live.Send("Describe this image.", Greedy(8));
  live.Send("And the colours?", Greedy(8));
  std::vector<SavedTurn> saved;
  for (const ChatTurn& t : live.turns()) {
    SavedTurn st{t.user_text, {}, t.answer};
    for (int i : t.image_indices) {
      const ImageInfo& info = live.images()[static_cast<size_t>(i)];
      st.images.push_back({info.path, info.sha256, info.mode});
    }
    saved.push_back(st);
  }
  ASSERT_EQ(saved[0].images.size(), 1u);

  Session resumed(e);
  std::vector<Progress> progress;
  StreamCallbacks pcb;
  pcb.on_progress = [&](const Progress& p) { progress.push_back(p); };
  resumed.Continue(saved, pcb);
  ASSERT_EQ(resumed.turns().size(), 2u);
  EXPECT_EQ(resumed.turns()[1].answer, live.turns()[1].answer);
  EXPECT_EQ(resumed.context_tokens() > 0, true);
  bool image_seen = false, prompt_done = false;
  for (const Progress& p : progress) {
    image_seen = image_seen || p.stage == Progress::Stage::kImage;
    prompt_done = prompt_done || (p.stage == Progress::Stage::kPrompt && p.done == p.total);
  }
  EXPECT_TRUE(image_seen);
  EXPECT_TRUE(prompt_done);

  auto next_turn = [](Session& s, std::vector<float>& first_logits) {
    StreamCallbacks cb;
    cb.on_logits = [&](std::span<const float> l) {
      if (first_logits.empty()) first_logits.assign(l.begin(), l.end());
    };
    return s.Send("Anything else?", Greedy(8), cb);
  };
  std::vector<float> live_logits, resumed_logits;
  const TurnResult a = next_turn(live, live_logits);
  const TurnResult b = next_turn(resumed, resumed_logits);
  ASSERT_FALSE(live_logits.empty());
  EXPECT_EQ(live_logits, resumed_logits);
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(a.stats.context_tokens, b.stats.context_tokens);
  EXPECT_EQ(a.attention.back().mean, b.attention.back().mean);
  // Negative control: continuing without the last answer gives other logits.
  std::vector<SavedTurn> other = saved;
  other[1].answer = "Something else entirely.";
  Session changed(e);
  changed.Continue(other);
  std::vector<float> changed_logits;
  next_turn(changed, changed_logits);
  EXPECT_NE(changed_logits, live_logits);
}

TEST(Session, ContinueRefusesAChangedImageAndKeepsTheSession) {
  auto e = DemoEngine();
  Session s(e);
  s.Send("Hi.", Greedy(2));
  const auto turns_before = s.turns().size();
  const auto dir = std::filesystem::temp_directory_path() / "glance-continue-test";
  std::filesystem::create_directories(dir);
  const auto copy = (dir / "image.png").string();
  std::filesystem::copy_file(DefaultDemoImagePath(), copy, std::filesystem::copy_options::overwrite_existing);
  const std::vector<SavedTurn> saved = {{"What is it?", {{copy, std::string(64, '0'), ImageMode::kFast}}, "A thing."}};
  try {
    s.Continue(saved);
    FAIL() << "accepted an image whose sha256 differs";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find(copy), std::string::npos) << err.what();
  }
  const std::vector<SavedTurn> missing = {{"What is it?", {{(dir / "gone.png").string(), "", ImageMode::kFast}}, "A."}};
  EXPECT_THROW(s.Continue(missing), Error);
  // Stopped while processing the history: Cancelled, the session unchanged.
  std::atomic<bool> cancel{true};
  StreamCallbacks cb;
  cb.cancel = &cancel;
  EXPECT_THROW(s.Continue({{"What is it?", {}, "A thing."}}, cb), Cancelled);
  EXPECT_EQ(s.turns().size(), turns_before);
  EXPECT_EQ(s.turns()[0].user_text, "Hi.");
  std::filesystem::remove_all(dir);
}

TEST(Session, TurnTimingIncludesTheBackendsKernels) {
  EngineOptions o;
  o.threads = 2;
  o.backend = BackendKind::kNpuEmu;
  auto e = Engine::Load(std::string(GLANCE_TEST_DATA "/tiny-a"), o);
  Session s(e);
  const TurnResult r = s.Send("Hello.", Greedy(3));
  int64_t npu_calls = 0;
  for (const auto& st : r.stats.stages)
    if (st.name.rfind("npu:", 0) == 0) npu_calls += st.calls;
  EXPECT_GT(npu_calls, 0);
  // The next turn reports only its own dispatches, not the running total.
  const TurnResult r2 = s.Send("Again.", Greedy(1));
  int64_t npu_calls2 = 0;
  for (const auto& st : r2.stats.stages)
    if (st.name.rfind("npu:", 0) == 0) npu_calls2 += st.calls;
  EXPECT_GT(npu_calls2, 0);
  EXPECT_LT(npu_calls2, npu_calls);  // 3 forwards this turn vs 4 in the first: not cumulative
  // The CPU backend adds no kernel stages.
  Session cpu(DemoEngine());
  for (const auto& st : cpu.Send("Hello.", Greedy(2)).stats.stages) EXPECT_NE(st.name.rfind("npu:", 0), 0u);
}

// A chat whose answer holds an image marker must still continue: the answer's text leaves out
// special tokens, a saved answer that still holds one has it removed from the render, and a user
// message holding one is refused with the marker named, losing nothing.
TEST(Session, ImageMarkersInTextNeverBreakAConversation) {
  auto e = DemoEngine();
  const Tokenizer& tok = e->tokenizer();
  const std::string pad = tok.TokenBytes(static_cast<int32_t>(e->config().image_token_id));
  const std::string end = tok.TokenBytes(static_cast<int32_t>(e->config().vision_end_token_id));

  // 1. Sampled answers: find one that drew a special token; its text has none and it continues.
  GenerateOptions sampled = Greedy(24);
  sampled.sampling = SamplingParams{};
  sampled.sampling->greedy = false;
  bool found = false;
  for (uint64_t seed = 1; seed <= 200 && !found; ++seed) {
    Session s(e);
    s.AttachImage(DefaultDemoImagePath());
    sampled.seed = seed;
    const TurnResult r = s.Send("Describe this image.", sampled);
    EXPECT_EQ(r.text, tok.Decode(r.tokens, /*skip_special=*/true));
    const bool drew_special = std::any_of(r.tokens.begin(), r.tokens.end(), [&](int32_t t) { return tok.IsSpecial(t); });
    if (!drew_special) continue;
    found = true;
    EXPECT_EQ(r.text.find("<|"), std::string::npos) << r.text;
    EXPECT_NO_THROW(s.Send("And then?", Greedy(4))) << "answer: " << r.text;
  }
  ASSERT_TRUE(found) << "no seed in 1..200 drew a special token (the test needs one)";

  // 2. A saved answer holding markers continues as if they were not there.
  Session live(e);
  live.AttachImage(DefaultDemoImagePath());
  live.Send("Describe this image.", Greedy(4));
  const ImageInfo& info = live.images()[0];
  const std::vector<SavedTurn> plain = {{"Describe this image.", {{info.path, info.sha256, info.mode}}, "A red square."}};
  std::vector<SavedTurn> marked = plain;
  marked[0].answer = "A red " + pad + end + "square." + pad;
  auto first_logits = [&](const std::vector<SavedTurn>& saved) {
    Session s(e);
    s.Continue(saved);
    std::vector<float> first;
    StreamCallbacks cb;
    cb.on_logits = [&](std::span<const float> l) {
      if (first.empty()) first.assign(l.begin(), l.end());
    };
    s.Send("Anything else?", Greedy(2), cb);
    return first;
  };
  const std::vector<float> a = first_logits(plain), b = first_logits(marked);
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b);

  // 3. A user message holding a marker: refused, naming it; the session and the image kept.
  Session s(e);
  s.Send("Hi.", Greedy(2));
  s.AttachImage(DefaultDemoImagePath());
  try {
    s.Send("What is " + pad + " here?", Greedy(2));
    FAIL() << "accepted a user message holding " << pad;
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find(pad), std::string::npos) << err.what();
  }
  EXPECT_EQ(s.turns().size(), 1u);
  EXPECT_NO_THROW(s.Send("What is here?", Greedy(2)));
  EXPECT_EQ(s.turns().back().image_indices.size(), 1u);  // the pending image went with it
}

// An image attached before a saved conversation is taken up goes with the next message (the
// GUI attaches to a reopened chat, then re-reads the history at Send): it was dropped.
TEST(Session, ContinueKeepsImagesAttachedForTheNextMessage) {
  auto e = DemoEngine();
  Session s(e);
  const ImageInfo info = s.AttachImage(DefaultDemoImagePath());
  s.Continue({{"Hi.", {}, "Hello."}});
  const TurnResult r = s.Send("What is in this image?", Greedy(2));
  ASSERT_EQ(s.turns().size(), 2u);
  ASSERT_EQ(s.turns().back().image_indices.size(), 1u);
  EXPECT_EQ(s.images()[static_cast<size_t>(s.turns().back().image_indices[0])].sha256, info.sha256);
  EXPECT_EQ(r.stats.image_tokens, info.tokens());

  // The same as attaching it after the history was taken up.
  Session t(e);
  t.Continue({{"Hi.", {}, "Hello."}});
  t.AttachImage(DefaultDemoImagePath());
  EXPECT_EQ(t.Send("What is in this image?", Greedy(2)).tokens, r.tokens);
}

// Teacher forcing (GenerateOptions::forced_tokens) is generation with the sample replaced: fed
// the tokens a greedy turn chose, a new session reports the same logits bit for bit, keeps the
// same answer, and its next turn continues exactly as after the generated answer.
TEST(Session, TeacherForcingReplaysAGeneratedAnswerExactly) {
  auto e = DemoEngine();
  auto turn = [](Session& s, const std::string& text, const GenerateOptions& o,
                 std::vector<std::vector<float>>& rows) {
    StreamCallbacks cb;
    cb.on_logits = [&](std::span<const float> l) { rows.emplace_back(l.begin(), l.end()); };
    return s.Send(text, o, cb);
  };
  Session live(e);
  live.AttachImage(DefaultDemoImagePath());
  std::vector<std::vector<float>> live_rows, live_next;
  const TurnResult generated = turn(live, "Describe this image.", Greedy(10), live_rows);
  ASSERT_EQ(generated.stop_reason, "max_tokens");  // the comparison below needs all 10 steps

  Session forced(e);
  forced.AttachImage(DefaultDemoImagePath());
  GenerateOptions o = Greedy(64);  // the forced answer's length wins
  o.forced_tokens = generated.tokens;
  o.sampling = SamplingParams{};   // sampling is ignored when forcing
  o.sampling->greedy = false;
  o.sampling->temperature = 1.5f;
  std::vector<std::vector<float>> forced_rows, forced_next;
  size_t prompt_rows = 0;
  StreamCallbacks cb;
  cb.on_logits = [&](std::span<const float> l) { forced_rows.emplace_back(l.begin(), l.end()); };
  cb.on_prompt = [&](const PromptStream& p) { prompt_rows = p.size(); };
  const TurnResult replayed = forced.Send("Describe this image.", o, cb);
  EXPECT_EQ(replayed.tokens, generated.tokens);
  EXPECT_EQ(replayed.text, generated.text);
  EXPECT_EQ(replayed.stop_reason, "max_tokens");
  EXPECT_FALSE(replayed.stats.seed.has_value());
  EXPECT_EQ(forced_rows, live_rows);
  EXPECT_EQ(replayed.attention.size(), generated.attention.size());
  EXPECT_EQ(static_cast<int>(prompt_rows), generated.stats.prompt_tokens);
  EXPECT_EQ(forced.turns()[0].answer, live.turns()[0].answer);
  EXPECT_EQ(forced.context_tokens(), live.context_tokens());
  // The next turn continues from the forced answer as from the generated one.
  const TurnResult a = turn(live, "And the colours?", Greedy(6), live_next);
  const TurnResult b = turn(forced, "And the colours?", Greedy(6), forced_next);
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(forced_next, live_next);

  // Negative control: another forced token changes every later step's logits, not the first.
  Session other(e);
  other.AttachImage(DefaultDemoImagePath());
  GenerateOptions o2 = Greedy(10);
  o2.forced_tokens = generated.tokens;
  o2.forced_tokens[0] = (o2.forced_tokens[0] + 1) % static_cast<int32_t>(e->tokenizer().size());
  std::vector<std::vector<float>> other_rows;
  turn(other, "Describe this image.", o2, other_rows);
  ASSERT_EQ(other_rows.size(), live_rows.size());
  EXPECT_EQ(other_rows[0], live_rows[0]);
  EXPECT_NE(other_rows[1], live_rows[1]);

  // A token outside the vocabulary is refused before anything changes.
  GenerateOptions bad = Greedy(4);
  bad.forced_tokens = {1, static_cast<int32_t>(e->tokenizer().size())};
  EXPECT_THROW(forced.Send("More?", bad), Error);
  EXPECT_EQ(forced.turns().size(), 2u);
  EXPECT_THROW(forced.Regenerate(bad), Error);
  EXPECT_EQ(forced.turns().back().answer, b.text);
}

// Regenerate keeps alternatives in the desktop app; choosing an earlier one must leave the
// session exactly as if that answer had been the one generated: the next turn's logits, tokens
// and cache length equal a fresh session that was sent the same conversation.
TEST(Session, ChosenAnswerContinuesExactlyLikeAFreshSession) {
  auto e = DemoEngine();
  EXPECT_THROW(Session(e).ChooseLastAnswer("nothing yet"), Error);
  auto next_turn = [](Session& s, std::vector<float>& first_logits) {
    StreamCallbacks cb;
    cb.on_logits = [&](std::span<const float> l) {
      if (first_logits.empty()) first_logits.assign(l.begin(), l.end());
    };
    return s.Send("Tell me more.", Greedy(8), cb);
  };
  GenerateOptions other = Greedy(16);
  other.forced_tokens = e->tokenizer().Encode("A small red square, next to a blue circle.");

  Session s(e);
  const TurnResult first = s.Send("Hello there.", Greedy(8));
  ASSERT_FALSE(first.tokens.empty());
  const TurnResult second = s.Regenerate(other);  // an alternative
  ASSERT_NE(first.text, second.text);
  s.ChooseLastAnswer(first.text);  // back to the first answer
  EXPECT_EQ(s.turns().back().answer, first.text);
  EXPECT_TRUE(s.turns().back().complete);
  // The meter's count: the render with this answer re-tokenized (a turn cut at max_tokens never
  // fed its last token, so the live count may be one less).
  EXPECT_LE(std::abs(s.context_tokens() - first.stats.context_tokens), 1);
  std::vector<float> chosen_logits;
  const TurnResult chosen = next_turn(s, chosen_logits);

  Session fresh(e);  // sent [q1, first answer, q2] and nothing else
  GenerateOptions replay = Greedy(8);
  replay.forced_tokens = first.tokens;
  fresh.Send("Hello there.", replay);
  std::vector<float> fresh_logits;
  const TurnResult expected = next_turn(fresh, fresh_logits);
  ASSERT_FALSE(fresh_logits.empty());
  EXPECT_EQ(chosen_logits, fresh_logits);
  EXPECT_EQ(chosen.tokens, expected.tokens);
  EXPECT_EQ(chosen.stats.context_tokens, expected.stats.context_tokens);

  // Negative control: without the choice the session continues from the alternative.
  Session kept(e);
  kept.Send("Hello there.", replay);
  kept.Regenerate(other);
  std::vector<float> kept_logits;
  next_turn(kept, kept_logits);
  EXPECT_NE(kept_logits, fresh_logits);
}

// Stop sequences (GenerateOptions::stop, issue 34): the answer ends before the first one; the
// stop sequence is neither streamed nor kept in the answer, its tokens keep no map, and the
// next turn continues from the cut answer exactly as a session that was given only that.
TEST(Session, StopSequenceEndsTheAnswerBeforeItAndKeepsNothingOfIt) {
  auto e = DemoEngine();
  const std::string full = "A small red square, next to a blue circle.";
  GenerateOptions forced = Greedy(64);
  forced.forced_tokens = e->tokenizer().Encode(full);
  auto run = [&](const std::vector<std::string>& stop, std::string& streamed, int& maps, Session& s) {
    GenerateOptions o = forced;
    o.stop = stop;
    StreamCallbacks cb;
    cb.on_text = [&](const std::string& piece) { streamed += piece; };
    cb.on_attention = [&](const AttentionMap&) { ++maps; };
    s.AttachImage(DefaultDemoImagePath());
    return s.Send("Describe this image.", o, cb);
  };
  // Negative control: no stop sequence, the whole text.
  Session plain(e);
  std::string plain_streamed;
  int plain_maps = 0;
  const TurnResult all = run({}, plain_streamed, plain_maps, plain);
  ASSERT_EQ(all.text, full);
  EXPECT_EQ(plain_streamed, full);
  EXPECT_NE(all.stop_reason, "stop");

  Session s(e);
  std::string streamed;
  int maps = 0;
  const TurnResult r = run({"blue", ", next"}, streamed, maps, s);
  EXPECT_EQ(r.stop_reason, "stop");
  EXPECT_EQ(r.text, "A small red square");
  EXPECT_EQ(streamed, "A small red square");
  EXPECT_EQ(s.turns().back().answer, "A small red square");
  // The maps of the tokens before the cut only (the words shown under the heatmap).
  const size_t before = e->tokenizer().Encode("A small red square").size();
  ASSERT_FALSE(r.attention.empty());
  EXPECT_EQ(r.attention.size(), before);
  std::string mapped;
  for (const AttentionMap& m : r.attention) mapped += m.token_text;
  EXPECT_EQ(mapped, "A small red square");
  for (const ImageAttention& ia : r.attention_by_image) EXPECT_EQ(ia.maps.size(), before);
  EXPECT_LT(r.tokens.size(), all.tokens.size());  // generation ended at the stop

  // The next turn continues from the cut answer: as a session given exactly that answer.
  std::vector<float> after_stop, expected;
  auto next = [](Session& session, std::vector<float>& first) {
    StreamCallbacks cb;
    cb.on_logits = [&](std::span<const float> l) {
      if (first.empty()) first.assign(l.begin(), l.end());
    };
    return session.Send("Tell me more.", Greedy(4), cb);
  };
  next(s, after_stop);
  Session fresh(e);
  GenerateOptions cut = Greedy(64);
  cut.forced_tokens = e->tokenizer().Encode("A small red square");
  fresh.AttachImage(DefaultDemoImagePath());
  fresh.Send("Describe this image.", cut);
  next(fresh, expected);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(after_stop, expected);
}

// The context length (issue 34: a setting): SetContextLimit lowers or raises the limit within
// the model's own; an answer that reaches it ends with "context", a message past it is refused
// with ContextFull naming both counts, and the session keeps everything it had.
TEST(Session, ContextLimitIsSettableClampedAndEndsTurnsClearly) {
  auto e = DemoEngine();
  Session s(e);
  EXPECT_EQ(s.context_limit(), kDefaultContextLimit);  // the limit before it was a setting
  EXPECT_EQ(s.model_context_limit(), 262144);           // tiny-a's max_position_embeddings
  EXPECT_EQ(s.SetContextLimit(kMaxContextLimit), 262144);  // lowered to the model's
  EXPECT_THROW(s.SetContextLimit(kMinContextLimit - 1), Error);
  EXPECT_EQ(s.context_limit(), 262144);  // a refused value changes nothing
  ASSERT_EQ(s.SetContextLimit(kMinContextLimit), kMinContextLimit);

  // An answer that reaches the limit ends there.
  const TurnResult first = s.Send("Hello there.", Greedy(kMinContextLimit));
  GenerateOptions forced = Greedy(kMinContextLimit);
  std::string filler;
  for (int i = 0; i < 700; ++i) filler += "a ";  // a token each
  forced.forced_tokens = e->tokenizer().Encode(filler);
  ASSERT_GT(forced.forced_tokens.size(), static_cast<size_t>(kMinContextLimit));
  const TurnResult full = s.Regenerate(forced);
  EXPECT_EQ(full.stop_reason, "context");
  EXPECT_LE(full.stats.context_tokens, kMinContextLimit);
  EXPECT_GE(full.stats.context_tokens, kMinContextLimit - 2);
  // Negative control: the same answer under the default limit runs to its end.
  Session roomy(e);
  roomy.Send("Hello there.", Greedy(kMinContextLimit));
  EXPECT_NE(roomy.Regenerate(forced).stop_reason, "context");

  // A message that does not fit: ContextFull, the conversation as it was.
  const size_t turns = s.turns().size();
  const std::string answer = s.turns().back().answer;
  try {
    s.Send("And now?", Greedy(4));
    FAIL() << "expected ContextFull";
  } catch (const ContextFull& err) {
    EXPECT_NE(std::string(err.what()).find("past the context limit of 512 tokens"), std::string::npos) << err.what();
  }
  EXPECT_EQ(s.turns().size(), turns);
  EXPECT_EQ(s.turns().back().answer, answer);
  // Raised again, the same message goes through from the same conversation.
  s.SetContextLimit(kDefaultContextLimit);
  EXPECT_FALSE(s.Send("And now?", Greedy(4)).stop_reason.empty());
  EXPECT_EQ(s.turns().size(), turns + 1);
  (void)first;
}
