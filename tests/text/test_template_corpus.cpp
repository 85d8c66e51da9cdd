// Hundreds of generated conversations (tests/text/template_corpus.mjs: interleaved text and
// images, 0-4 images a message at any position, system messages, assistant history with and
// without reasoning, enable_thinking on/off/unset, both Qwen3.5 template variants) rendered by
// an independent Jinja implementation, @huggingface/jinja, on each checkpoint's own
// chat_template.jinja, against Glance's prompt path (issue 28):
//   * the template layer (ChatTemplate::Render) gives the same text, and refuses what Jinja
//     refuses;
//   * the prompt stream (BuildPromptStream, what the Session and the checks feed) gives the
//     same token ids as tokenizing Jinja's text;
//   * every conversation a Session can hold (alternating turns ending with the user's, plain
//     answers) taken up by Session::Continue, images encoded, gives the same ids with each
//     image's pad expanded to its token count.
// The corpus file comes from the ctest fixture template_corpus_render (GLANCE_TEMPLATE_CORPUS).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "core/checks/check_gates.h"
#include "core/engine/engine.h"
#include "core/engine/prompt_stream.h"
#include "core/engine/session.h"
#include "core/text/chat_template.h"
#include "core/text/tokenizer.h"
#include "core/util/error.h"
#include "core/util/json_field.h"

using namespace glance;
using nlohmann::json;

namespace {

const json& Corpus() {
  static const json j = [] {
    const char* path = std::getenv("GLANCE_TEMPLATE_CORPUS");
    if (!path) throw Error("GLANCE_TEMPLATE_CORPUS is not set (ctest runs template_corpus_render first)");
    return ReadJsonFile(path, std::string("cannot open the template corpus ") + path);
  }();
  return j;
}

// The engine whose folder holds `template_path` (tiny-a: the 4B-and-up template; the demo
// model: the 0.8B/2B one).
std::shared_ptr<const Engine> EngineFor(const std::string& template_path) {
  static std::map<std::string, std::shared_ptr<const Engine>> engines;
  const std::string dir = std::filesystem::path(template_path).parent_path().string();
  auto& e = engines[dir];
  if (!e) {
    EngineOptions o;
    o.threads = 2;
    o.backend = BackendKind::kCpu;
    o.precision = Precision::kF32;
    e = Engine::Load(dir, o);
  }
  return e;
}

std::optional<bool> Thinking(const json& c) {
  const json& t = c.at("enable_thinking");
  return t.is_boolean() ? std::optional<bool>(t.get<bool>()) : std::nullopt;
}

size_t ImageCount(const std::vector<ChatMessage>& msgs) {
  size_t n = 0;
  for (const ChatMessage& m : msgs)
    for (const ContentPart& p : m.content) n += p.kind == ContentPart::kImage;
  return n;
}

std::vector<int64_t> Ids(const Tokenizer& tok, const std::string& text) {
  const auto ids = tok.Encode(text);
  return {ids.begin(), ids.end()};
}

std::string Describe(size_t i, const json& c) { return "case " + std::to_string(i) + ": " + c.at("messages").dump(); }

// The case's tools, each as the JSON text the client wrote (key order kept).
std::vector<std::string> Tools(const json& c) {
  return c.contains("tools_json") ? c["tools_json"].get<std::vector<std::string>>() : std::vector<std::string>{};
}

// The conversation as a Session holds it, or nullopt when a Session cannot hold it (by design:
// after an optional text system prompt, each turn is tool results, then a user message, either
// possibly absent, then an answer; it ends with an unanswered turn, keeps answers as plain text
// (with their tool calls), and never sends an empty message).
struct AsSession {
  std::string system;
  SavedConversation turns;
};
std::optional<AsSession> ForSession(const std::vector<ChatMessage>& msgs, const json& raw, const std::string& image) {
  AsSession s;
  size_t at = 0;
  if (!msgs.empty() && msgs[0].role == "system") {
    for (const ContentPart& p : msgs[0].content) s.system += p.text;
    if (s.system.empty()) return std::nullopt;  // SetSystemPrompt("") means "no system message"
    at = 1;
  }
  SavedTurn t;  // the turn being read
  for (size_t i = at; i < msgs.size(); ++i) {
    const ChatMessage& m = msgs[i];
    if (m.role == "tool") {
      if (!t.parts.empty()) return std::nullopt;  // a Session renders a turn's results before its message
      std::string text;
      for (const ContentPart& p : m.content) {
        if (p.kind != ContentPart::kText) return std::nullopt;
        text += p.text;
      }
      t.tool_results.push_back(text);
    } else if (m.role == "user") {
      if (!t.parts.empty()) return std::nullopt;
      for (const ContentPart& p : m.content) {
        if (p.kind == ContentPart::kImage) {
          t.parts.push_back(MessagePart::Image(static_cast<int>(t.images.size())));
          t.images.push_back({image, "", ImageMode::kFast});
        } else if (!p.text.empty()) {
          t.parts.push_back(MessagePart::Text(p.text));
          t.user_text += p.text;
        }
      }
      if (t.parts.empty()) return std::nullopt;
    } else if (m.role == "assistant") {
      if (t.parts.empty() && t.tool_results.empty()) return std::nullopt;
      if (raw[i].contains("reasoning_content")) return std::nullopt;
      const json& content = raw[i]["content"];
      if (!content.is_string() && !(content.is_null() && !m.tool_calls.empty())) return std::nullopt;
      t.answer = content.is_string() ? content.get<std::string>() : "";
      t.tool_calls = m.tool_calls;
      // An empty answer is an unanswered turn to a Session.
      if (t.answer.empty() && t.tool_calls.empty()) return std::nullopt;
      s.turns.push_back(std::move(t));
      t = SavedTurn{};
    } else {
      return std::nullopt;
    }
  }
  if (t.parts.empty() && t.tool_results.empty()) return std::nullopt;  // it must end with a message to answer
  s.turns.push_back(std::move(t));
  return s;
}

}  // namespace

TEST(TemplateCorpus, TheCorpusIsLargeAndVaried) {
  const json& cases = Corpus().at("cases");
  size_t interleaved = 0, multi_image = 0, refused = 0, thinking_set = 0;
  for (const json& c : cases) {
    refused += !c.at("error").is_null();
    thinking_set += c.at("enable_thinking").is_boolean();
    for (const json& m : c.at("messages")) {
      if (!m.at("content").is_array()) continue;
      size_t images = 0, first_image = 99, last_text = 0, k = 0;
      for (const json& p : m["content"]) {
        if (p.value("type", "") == "image") {
          ++images;
          first_image = std::min(first_image, k);
        } else {
          last_text = k;
        }
        ++k;
      }
      multi_image += images >= 2;
      interleaved += images > 0 && first_image < last_text && first_image > 0;
    }
  }
  EXPECT_GE(cases.size(), 800u);
  EXPECT_GE(interleaved, 100u);
  EXPECT_GE(multi_image, 100u);
  EXPECT_GE(refused, 6u);
  EXPECT_GE(thinking_set, 200u);
}

TEST(TemplateCorpus, TheTemplateLayerRendersWhatJinjaRenders) {
  const json& cases = Corpus().at("cases");
  int compared = 0, failures = 0, with_tools = 0;
  for (size_t i = 0; i < cases.size() && failures < 5; ++i) {
    const json& c = cases[i];
    const auto engine = EngineFor(c.at("template").get<std::string>());
    ChatTemplateOptions o;
    o.add_generation_prompt = c.at("add_generation_prompt").get<bool>();
    o.enable_thinking = Thinking(c);
    o.tools = Tools(c);
    with_tools += !o.tools.empty();
    std::string got, error;
    try {
      got = engine->chat_template().Render(checks::MessagesFromJson(c.at("messages")), o);
    } catch (const Error& e) {
      error = e.what();
    }
    if (!c.at("error").is_null()) {
      EXPECT_FALSE(error.empty()) << Describe(i, c) << "\nJinja refused it (" << c["error"] << "), Glance rendered it";
      failures += error.empty();
      continue;
    }
    ++compared;
    const std::string want = c.at("text").get<std::string>();
    EXPECT_EQ(error, "") << Describe(i, c);
    EXPECT_EQ(got, want) << Describe(i, c);
    failures += got != want;
  }
  std::printf("template layer: %d renders equal to Jinja's (%d with tools)\n", compared, with_tools);
  EXPECT_GE(compared, 700);
  EXPECT_GE(with_tools, 150);
}

// Negative control: the comparison tells the two checkpoints' templates apart — every
// conversation that asks for the generation prompt with enable_thinking unset renders
// differently with the other template (the 0.8B/2B one closes the think block, the 4B one
// opens it).
TEST(TemplateCorpus, NegativeControlTheOtherCheckpointsTemplateIsCaught) {
  const json& cases = Corpus().at("cases");
  std::vector<std::string> templates;
  for (const json& c : cases)
    if (std::find(templates.begin(), templates.end(), c.at("template").get<std::string>()) == templates.end())
      templates.push_back(c["template"].get<std::string>());
  ASSERT_EQ(templates.size(), 2u);
  int caught = 0, tried = 0;
  for (const json& c : cases) {
    if (!c.at("error").is_null() || !c.at("add_generation_prompt").get<bool>() || c.at("enable_thinking").is_boolean())
      continue;
    const std::string other = templates[0] == c["template"].get<std::string>() ? templates[1] : templates[0];
    ChatTemplateOptions o;
    o.tools = Tools(c);
    const std::string got = EngineFor(other)->chat_template().Render(checks::MessagesFromJson(c.at("messages")), o);
    ++tried;
    caught += got != c.at("text").get<std::string>();
  }
  EXPECT_GE(tried, 100);
  EXPECT_EQ(caught, tried);
}

TEST(TemplateCorpus, ThePromptStreamHasTheIdsOfJinjasText) {
  const json& cases = Corpus().at("cases");
  int compared = 0, failures = 0;
  for (size_t i = 0; i < cases.size() && failures < 5; ++i) {
    const json& c = cases[i];
    if (!c.at("error").is_null() || !c.at("add_generation_prompt").get<bool>()) continue;
    const auto engine = EngineFor(c.at("template").get<std::string>());
    const std::vector<ChatMessage> msgs = checks::MessagesFromJson(c.at("messages"));
    // One token per image (a 1x1 grid), so the expanded stream equals the unexpanded render.
    const std::vector<lm::ImageGrid> grids(ImageCount(msgs), lm::ImageGrid{1, 1});
    std::vector<int64_t> got;
    try {
      got = BuildPromptStream(*engine, msgs, Thinking(c), grids, Tools(c)).ids;
    } catch (const Error& e) {
      ADD_FAILURE() << Describe(i, c) << ": " << e.what();
      ++failures;
      continue;
    }
    ++compared;
    const std::vector<int64_t> want = Ids(engine->tokenizer(), c.at("text").get<std::string>());
    EXPECT_EQ(got, want) << Describe(i, c);
    failures += got != want;
  }
  std::printf("prompt stream: %d id sequences equal to Jinja's text tokenized\n", compared);
  EXPECT_GE(compared, 500);  // with tools, tool calls and tool results too
}

TEST(TemplateCorpus, ASessionTakingUpEachConversationFeedsJinjasIds) {
  const json& cases = Corpus().at("cases");
  const std::string image = GLANCE_TEST_DATA "/tiny-a/image.png";
  int compared = 0, with_images = 0, with_tools = 0, failures = 0;
  for (size_t i = 0; i < cases.size() && failures < 5; ++i) {
    const json& c = cases[i];
    if (!c.at("error").is_null()) continue;
    const std::vector<ChatMessage> msgs = checks::MessagesFromJson(c.at("messages"));
    const std::optional<AsSession> conv = ForSession(msgs, c.at("messages"), image);
    if (!conv) continue;
    const auto engine = EngineFor(c.at("template").get<std::string>());
    Session s(engine);
    if (!conv->system.empty()) s.SetSystemPrompt(conv->system);
    s.SetTools(Tools(c));
    s.Continue(conv->turns);
    std::vector<int64_t> got;
    GenerateOptions o;
    o.max_new_tokens = 1;
    o.capture_attention = false;
    o.sampling = SamplingParams::Greedy();
    o.enable_thinking = Thinking(c);
    StreamCallbacks cb;
    cb.on_prompt = [&](const PromptStream& p) { got = p.ids; };
    s.Regenerate(o, cb);  // answers the taken-up last message
    // Jinja's text with each image's pad expanded to the tokens the Session encoded it into.
    const std::vector<int32_t> unexpanded = engine->tokenizer().Encode(c.at("text").get<std::string>());
    const size_t n_images = ImageCount(msgs);
    const std::vector<int32_t> counts(n_images, s.images().empty() ? 1 : s.images()[0].tokens());
    const std::vector<int32_t> want32 =
        ExpandPadTokens(unexpanded, static_cast<int32_t>(engine->config().image_token_id), counts);
    const std::vector<int64_t> want(want32.begin(), want32.end());
    ++compared;
    with_images += n_images > 0;
    with_tools += !Tools(c).empty() || std::any_of(conv->turns.begin(), conv->turns.end(), [](const SavedTurn& t) {
                    return !t.tool_results.empty() || !t.tool_calls.empty();
                  });
    EXPECT_EQ(got, want) << Describe(i, c);
    failures += got != want;
  }
  std::printf("Session::Continue: %d conversations (%d with images, %d with tools) fed Jinja's ids\n", compared,
              with_images, with_tools);
  EXPECT_GE(with_tools, 20);
  EXPECT_GE(compared, 150);
  EXPECT_GE(with_images, 100);
}
