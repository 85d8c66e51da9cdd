// A Session message is an ordered list of parts (issue 28): text before, between and after
// images, several images a message, each with its own attention maps; the order survives
// editing, saving and continuing. On tiny-a (f32, the reference path).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/engine/engine.h"
#include "core/engine/prompt_stream.h"
#include "core/engine/sampler.h"
#include "core/engine/session.h"
#include "core/text/chat_template.h"
#include "core/text/tokenizer.h"
#include "core/util/error.h"

using namespace glance;

namespace {

std::shared_ptr<const Engine> TinyA() {
  static std::shared_ptr<const Engine> e = [] {
    EngineOptions o;
    o.threads = 2;
    o.backend = BackendKind::kCpu;
    o.precision = Precision::kF32;
    return Engine::Load(std::string(GLANCE_TEST_DATA "/tiny-a"), o);
  }();
  return e;
}

const std::string kImageA = GLANCE_TEST_DATA "/tiny-a/image.png";
std::string ImageB() { return DefaultDemoImagePath(); }

GenerateOptions Greedy(int n) {
  GenerateOptions o;
  o.max_new_tokens = n;
  o.sampling = SamplingParams::Greedy();
  o.enable_thinking = false;
  return o;
}

// The ids the template renders for one user message of `parts`, each image's pad expanded to
// `tokens[k]` rows: what the Session must feed.
std::vector<int64_t> RenderedIds(const Engine& e, const std::vector<ContentPart>& parts,
                                 const std::vector<int32_t>& tokens) {
  ChatTemplateOptions o;
  o.enable_thinking = false;
  const std::vector<ChatMessage> msgs = {{"user", parts, std::nullopt}};
  const auto ids = ExpandPadTokens(e.tokenizer().Encode(e.chat_template().Render(msgs, o)),
                                   static_cast<int32_t>(e.config().image_token_id), tokens);
  return {ids.begin(), ids.end()};
}

// The turn's prompt ids and first logits row.
struct Sent {
  TurnResult result;
  std::vector<int64_t> ids;
  std::vector<float> first_logits;
};
Sent SendCapturing(Session& s, const std::string& text, GenerateOptions o = Greedy(4)) {
  Sent out;
  StreamCallbacks cb;
  cb.on_prompt = [&](const PromptStream& p) { out.ids = p.ids; };
  cb.on_logits = [&](std::span<const float> l) {
    if (out.first_logits.empty()) out.first_logits.assign(l.begin(), l.end());
  };
  out.result = s.Send(text, o, cb);
  return out;
}

}  // namespace

TEST(SessionParts, TextBeforeTheImageIsSentWhereItWasWritten) {
  auto e = TinyA();
  Session s(e);
  s.AddText("Look at this picture: ");
  const ImageInfo a = s.AttachImage(kImageA);
  ASSERT_EQ(s.pending_parts().size(), 2u);
  const Sent sent = SendCapturing(s, "What is on the table? Answer in one sentence.");
  const std::vector<ContentPart> in_order = {ContentPart::Text("Look at this picture: "), ContentPart::Image(),
                                             ContentPart::Text("What is on the table? Answer in one sentence.")};
  EXPECT_EQ(sent.ids, RenderedIds(*e, in_order, {a.tokens()}));
  // Negative control: the old image-first message is another prompt.
  const std::vector<ContentPart> image_first = {
      ContentPart::Image(), ContentPart::Text("Look at this picture: What is on the table? Answer in one sentence.")};
  EXPECT_NE(sent.ids, RenderedIds(*e, image_first, {a.tokens()}));
  ASSERT_EQ(s.turns().size(), 1u);
  EXPECT_EQ(s.turns()[0].parts.size(), 3u);
  EXPECT_EQ(s.turns()[0].user_text, "Look at this picture: What is on the table? Answer in one sentence.");
  EXPECT_EQ(s.turns()[0].image_indices, std::vector<int>{0});
  EXPECT_TRUE(s.pending_parts().empty());
}

TEST(SessionParts, TwoImagesInOneMessageEachGetTheirOwnMaps) {
  auto e = TinyA();
  Session s(e);
  s.AddText("Which of these two is older? ");
  const ImageInfo a = s.AttachImage(kImageA, ImageMode::kDetail);
  s.AddText(" or ");
  const ImageInfo b = s.AttachImage(ImageB());
  const Sent sent = SendCapturing(s, "");
  EXPECT_EQ(sent.ids, RenderedIds(*e, {ContentPart::Text("Which of these two is older? "), ContentPart::Image(),
                                       ContentPart::Text(" or "), ContentPart::Image()},
                                  {a.tokens(), b.tokens()}));
  const TurnResult& r = sent.result;
  ASSERT_FALSE(r.tokens.empty());
  ASSERT_EQ(r.attention_by_image.size(), 2u);
  EXPECT_EQ(r.attention_by_image[0].image_index, 0);
  EXPECT_EQ(r.attention_by_image[1].image_index, 1);
  for (size_t k = 0; k < 2; ++k) {
    const ImageInfo& info = k == 0 ? a : b;
    ASSERT_EQ(r.attention_by_image[k].maps.size(), r.tokens.size());
    for (const AttentionMap& m : r.attention_by_image[k].maps) {
      EXPECT_EQ(m.image_index, static_cast<int>(k));
      EXPECT_EQ(m.grid_h, info.grid_h);
      EXPECT_EQ(m.grid_w, info.grid_w);
    }
  }
  // The primary maps are the last image's; the two images' maps are different rows.
  EXPECT_EQ(r.attention.back().mean, r.attention_by_image[1].maps.back().mean);
  EXPECT_NE(r.attention_by_image[0].maps.back().mean, r.attention_by_image[1].maps.back().mean);
}

TEST(SessionParts, AReorderedEditFeedsEachImageAtItsNewPlace) {
  auto e = TinyA();
  // Edited from [A, "and", B] to [B, "and", A] ...
  Session edited(e);
  edited.AttachImage(kImageA);
  edited.AddText(" and ");
  edited.AttachImage(ImageB());
  edited.Send("", Greedy(3));
  Sent after_edit;
  StreamCallbacks cb;
  cb.on_logits = [&](std::span<const float> l) {
    if (after_edit.first_logits.empty()) after_edit.first_logits.assign(l.begin(), l.end());
  };
  after_edit.result = edited.EditLastUserParts(
      {MessagePart::Image(1), MessagePart::Text(" and "), MessagePart::Image(0)}, Greedy(3), cb);
  // ... equals a session that attached them in that order.
  Session fresh(e);
  fresh.AttachImage(ImageB());
  fresh.AddText(" and ");
  fresh.AttachImage(kImageA);
  const Sent direct = SendCapturing(fresh, "", Greedy(3));
  ASSERT_FALSE(direct.first_logits.empty());
  EXPECT_EQ(after_edit.first_logits, direct.first_logits);
  EXPECT_EQ(after_edit.result.tokens, direct.result.tokens);
  ASSERT_EQ(after_edit.result.attention_by_image.size(), 2u);
  EXPECT_EQ(after_edit.result.attention_by_image[0].image_index, 1);  // B comes first now
  EXPECT_EQ(after_edit.result.attention_by_image[0].maps.back().mean, direct.result.attention_by_image[0].maps.back().mean);
  // Negative control: the unedited order gives other logits.
  Session unedited(e);
  unedited.AttachImage(kImageA);
  unedited.AddText(" and ");
  unedited.AttachImage(ImageB());
  EXPECT_NE(SendCapturing(unedited, "", Greedy(3)).first_logits, direct.first_logits);
  // An edit naming an image that is not the message's is refused, the session unchanged.
  EXPECT_THROW(edited.EditLastUserParts({MessagePart::Image(5)}, Greedy(3)), Error);
  EXPECT_EQ(edited.turns().back().image_indices, (std::vector<int>{1, 0}));
}

TEST(SessionParts, AnAttachedImageCanBeRemovedBeforeSending) {
  auto e = TinyA();
  Session s(e);
  s.AttachImage(kImageA);
  s.AddText("and");
  const ImageInfo b = s.AttachImage(ImageB());
  s.RemovePendingImage(0);
  ASSERT_EQ(s.images().size(), 1u);
  EXPECT_EQ(s.images()[0].sha256, b.sha256);
  EXPECT_EQ(s.pending_parts(), (std::vector<MessagePart>{MessagePart::Text("and"), MessagePart::Image(0)}));
  EXPECT_THROW(s.RemovePendingImage(3), Error);
  const Sent sent = SendCapturing(s, "");
  EXPECT_EQ(sent.ids, RenderedIds(*e, {ContentPart::Text("and"), ContentPart::Image()}, {b.tokens()}));
  EXPECT_THROW(s.RemovePendingImage(0), Error);  // sent: no longer removable
}

TEST(SessionParts, ContinuingAnInterleavedChatEqualsTheLiveOne) {
  auto e = TinyA();
  Session live(e);
  live.AddText("First look: ");
  live.AttachImage(kImageA);
  live.AddText(" then this one ");
  live.AttachImage(ImageB());
  live.Send("Describe both.", Greedy(4));
  live.Send("And now?", Greedy(4));
  SavedConversation saved;
  for (const ChatTurn& t : live.turns()) {
    SavedTurn st{t.user_text, {}, t.answer, {}};
    for (const MessagePart& p : t.parts) {
      if (p.kind == MessagePart::kText) {
        st.parts.push_back(p);
        continue;
      }
      const ImageInfo& info = live.images()[static_cast<size_t>(p.image)];
      st.parts.push_back(MessagePart::Image(static_cast<int>(st.images.size())));
      st.images.push_back({info.path, info.sha256, info.mode});
    }
    saved.push_back(st);
  }
  Session resumed(e);
  resumed.Continue(saved);
  EXPECT_EQ(resumed.turns()[0].parts, live.turns()[0].parts);
  const Sent a = SendCapturing(live, "Anything else?");
  const Sent b = SendCapturing(resumed, "Anything else?");
  EXPECT_EQ(a.ids, b.ids);
  EXPECT_EQ(a.first_logits, b.first_logits);
  // Negative control: the same turn saved without its order (a version-1 file: images, then
  // the text) is another conversation.
  SavedConversation legacy = saved;
  legacy[0].parts.clear();
  Session old_order(e);
  old_order.Continue(legacy);
  EXPECT_NE(SendCapturing(old_order, "Anything else?").ids, a.ids);
}

TEST(SessionParts, AVersionOneSavedTurnIsItsImagesThenItsText) {
  SavedTurn t{"Describe it.", {{"a.png", "", ImageMode::kFast}, {"b.png", "", ImageMode::kFast}}, "", {}};
  EXPECT_EQ(t.OrderedParts(), (std::vector<MessagePart>{MessagePart::Image(0), MessagePart::Image(1),
                                                        MessagePart::Text("Describe it.")}));
  t.parts = {MessagePart::Text("x"), MessagePart::Image(1)};
  EXPECT_EQ(t.OrderedParts(), t.parts);
}

TEST(SessionParts, ASavedTurnNamingAMissingImageIsAClearError) {
  auto e = TinyA();
  Session s(e);
  SavedConversation bad = {{"hi", {}, "", {MessagePart::Text("hi"), MessagePart::Image(2)}}};
  try {
    s.Continue(bad);
    FAIL() << "a part naming image 2 of 0 was accepted";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("message 1 names image 2 of 0"), std::string::npos) << err.what();
  }
  EXPECT_TRUE(s.turns().empty());
}
