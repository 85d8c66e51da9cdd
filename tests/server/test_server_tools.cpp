// Tool calls in the server (issue 29): the request fields read or refused by name, the stream's
// hold-back and deltas, and ChatService answering with calls (scripted by teacher forcing:
// glance.forced_answer), a bad call returned as text, the tool loop continuing the held
// conversation with a prompt equal to the chat template's render, and tool_choice required /
// a named function constraining a sampled answer to well-formed calls.
#include <cstdio>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/engine/engine.h"
#include "core/text/chat_template.h"
#include "core/text/tokenizer.h"
#include "core/text/tool_call_automaton.h"
#include "server/api_error.h"
#include "server/chat_request.h"
#include "server/chat_service.h"
#include "server/responses_request.h"
#include "server/tool_call_stream.h"

namespace glance::server {
namespace {

using nlohmann::json;

const json kWeather = {{"type", "function"},
                       {"function",
                        {{"name", "get_weather"},
                         {"description", "The weather in a city"},
                         {"parameters",
                          {{"type", "object"},
                           {"properties", {{"city", {{"type", "string"}}}, {"days", {{"type", "integer"}}}}},
                           {"required", {"city"}}}}}}};
const json kPing = {{"type", "function"},
                    {"function", {{"name", "ping"}, {"parameters", {{"type", "object"}, {"properties", json::object()}}}}}};

int StatusOf(const std::function<void()>& f, std::string* param = nullptr) {
  try {
    f();
  } catch (const ApiError& e) {
    if (param) *param = e.param();
    return e.status();
  }
  return 200;
}

std::string Call(const std::string& name, const std::vector<std::pair<std::string, std::string>>& params) {
  std::string s = "<tool_call>\n<function=" + name + ">\n";
  for (const auto& [k, v] : params) s += "<parameter=" + k + ">\n" + v + "\n</parameter>\n";
  return s + "</function>\n</tool_call>";
}

TEST(ServerTools, RequestsReadToolsAndRefuseBadOnesByName) {
  const json user = {{"role", "user"}, {"content", "Weather in Paris?"}};
  auto parse = [](const json& body) { return ParseChatRequest(body.dump(), ServerLimits{}); };
  // Tools keep the client's key order (the template renders them as sent).
  const std::string ordered = R"({"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"z","description":"d","parameters":{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}}}}],"tool_choice":{"type":"function","function":{"name":"z"}},"parallel_tool_calls":false})";
  const ChatRequest r = ParseChatRequest(ordered, {});
  ASSERT_EQ(r.tools.size(), 1u);
  EXPECT_EQ(r.tools[0], R"({"type":"function","function":{"name":"z","description":"d","parameters":{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}}}})");
  EXPECT_EQ(r.tool_choice, ChatRequest::ToolChoice::kFunction);
  EXPECT_EQ(r.tool_choice_name, "z");
  EXPECT_FALSE(r.parallel_tool_calls);
  EXPECT_EQ(parse({{"messages", {user}}, {"tools", {kWeather}}, {"tool_choice", "required"}}).tool_choice,
            ChatRequest::ToolChoice::kRequired);
  EXPECT_EQ(parse({{"messages", {user}}, {"tools", {kWeather}}, {"tool_choice", "none"}}).tool_choice,
            ChatRequest::ToolChoice::kNone);

  // A tool loop's history: an assistant message with calls and no content, then the results.
  const json calls = json::array({{{"id", "call_1"}, {"type", "function"},
                                   {"function", {{"name", "get_weather"}, {"arguments", R"({"city":"Paris"})"}}}}});
  const json loop = {user,
                     {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", calls}},
                     {{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "21 C"}}};
  const ChatRequest l = parse({{"messages", loop}, {"tools", {kWeather}}});
  ASSERT_EQ(l.messages.size(), 3u);
  ASSERT_EQ(l.messages[1].tool_calls.size(), 1u);
  EXPECT_EQ(l.messages[1].tool_calls[0].name, "get_weather");
  EXPECT_EQ(l.messages[1].tool_calls[0].arguments, R"({"city":"Paris"})");
  EXPECT_EQ(l.messages[2].role, "tool");
  EXPECT_EQ(l.messages[2].text, "21 C");
  EXPECT_EQ(NewMessageStart(l.messages), 2u);

  // Each mistake is a 400 naming its field.
  json bad_type = kWeather;
  bad_type["type"] = "web_search";
  json no_name = kWeather;
  no_name["function"].erase("name");
  json bad_name = kWeather;
  bad_name["function"]["name"] = "get weather>";
  json bad_schema = kWeather;
  bad_schema["function"]["parameters"]["properties"]["days"]["minimum"] = 1;
  json bad_args = loop;
  bad_args[1]["tool_calls"][0]["function"]["arguments"] = "{city: Paris}";
  json no_id = loop;
  no_id[2].erase("tool_call_id");
  json orphan = json::array({user, {{"role", "assistant"}, {"content", "Hi"}}, {{"role", "tool"}, {"tool_call_id", "x"}, {"content", "1"}}});
  json calls_from_user = json::array({{{"role", "user"}, {"content", "hi"}, {"tool_calls", calls}}});
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"messages", {user}}, {"tools", {bad_type}}}, "tools[0].type"},
      {{{"messages", {user}}, {"tools", {no_name}}}, "tools[0].function.name"},
      {{{"messages", {user}}, {"tools", {bad_name}}}, "tools[0].function.name"},
      {{{"messages", {user}}, {"tools", {kWeather, kWeather}}}, "tools[1].function.name"},
      {{{"messages", {user}}, {"tools", "get_weather"}}, "tools"},
      {{{"messages", {user}}, {"tools", {kWeather}}, {"tool_choice", {{"type", "function"}, {"function", {{"name", "ping"}}}}}},
       "tool_choice.function.name"},
      {{{"messages", {user}}, {"tool_choice", "required"}}, "tool_choice"},
      {{{"messages", {user}}, {"tools", {kWeather}}, {"tool_choice", "sometimes"}}, "tool_choice"},
      {{{"messages", {user}}, {"tools", {bad_schema}}, {"tool_choice", "required"}}, "tools[0].function.parameters.properties.days"},
      {{{"messages", bad_args}, {"tools", {kWeather}}}, "messages[1].tool_calls[0].function.arguments"},
      {{{"messages", no_id}, {"tools", {kWeather}}}, "messages[2].tool_call_id"},
      {{{"messages", orphan}}, "messages[2]"},
      {{{"messages", calls_from_user}}, "messages[0].tool_calls"},
      {{{"messages", {user}}, {"tools", {kWeather}}, {"tool_choice", "required"}, {"response_format", {{"type", "json_object"}}}},
       "tool_choice"},
  };
  for (const auto& [body, want] : cases) {
    std::string param;
    EXPECT_EQ(StatusOf([&] { parse(body); }, &param), 400) << body.dump();
    EXPECT_EQ(param, want) << body.dump();
  }
  // Control: the same schema is fine when nothing is constrained (auto only parses).
  EXPECT_EQ(StatusOf([&] { parse({{"messages", {user}}, {"tools", {bad_schema}}}); }), 200);
}

// Text goes out as content up to where a call may start; the call's text waits for the end.
TEST(ServerTools, AStreamHoldsBackTheCallsText) {
  const std::string answer = "Let me check.\n\n" + Call("get_weather", {{"city", "Paris"}});
  // Fed in every split of two pieces and token-sized pieces, the content sent is the same.
  for (size_t cut = 0; cut <= answer.size(); ++cut) {
    ToolCallHoldback h;
    std::string sent = h.Push(answer.substr(0, cut));
    sent += h.Push(answer.substr(cut));
    EXPECT_EQ(sent, "Let me check.") << cut;
    EXPECT_EQ(sent + h.Flush(), answer) << cut;  // a bad call: the held text follows as content
  }
  ToolCallHoldback h;
  EXPECT_EQ(h.Push("a < b and <"), "a < b and");
  EXPECT_EQ(h.Push("b>"), " <b>");  // not "<tool_call>" after all: sent
  EXPECT_EQ(h.Push(" x\n"), " x");
  EXPECT_EQ(h.Push("<tool_"), "");
  EXPECT_EQ(h.Flush(), "\n<tool_");
  EXPECT_EQ(h.Push("plain"), "plain");  // after Flush it starts afresh
}

TEST(ServerTools, CallsStreamAsDeltasWithTheirIndexThenArgumentsInPieces) {
  const std::vector<ToolCall> calls = {{"get_weather", R"({"city":"Zürich – 北京","days":2})"}, {"ping", "{}"}};
  const std::vector<std::string> ids = {NewToolCallId(), NewToolCallId()};
  EXPECT_NE(ids[0], ids[1]);
  EXPECT_EQ(ids[0].rfind("call_", 0), 0u);
  EXPECT_EQ(ids[0].size(), 29u);
  const std::vector<json> deltas = ToolCallDeltas(calls, ids, 5);
  std::vector<std::string> args(2), names(2);
  int pieces = 0;
  for (const json& d : deltas) {
    ASSERT_EQ(d["tool_calls"].size(), 1u);
    const json& c = d["tool_calls"][0];
    const size_t i = c["index"].get<size_t>();
    if (c.contains("id")) {
      EXPECT_EQ(c["id"], ids[i]);
      EXPECT_EQ(c["type"], "function");
      EXPECT_TRUE(names[i].empty());
      names[i] = c["function"]["name"];
      EXPECT_EQ(c["function"]["arguments"], "");
    } else {
      EXPECT_FALSE(names[i].empty()) << "arguments before the call's first delta";
      const std::string piece = c["function"]["arguments"];
      EXPECT_LE(piece.size(), 5u);
      EXPECT_NO_THROW((void)json(piece).dump()) << "a piece splits a UTF-8 character";
      args[i] += piece;
      ++pieces;
    }
  }
  EXPECT_EQ(names[0], "get_weather");
  EXPECT_EQ(names[1], "ping");
  EXPECT_EQ(args[0], calls[0].arguments);
  EXPECT_EQ(args[1], "{}");
  EXPECT_GT(pieces, 6);
  const json message = ToolCallsJson(calls, ids);
  EXPECT_EQ(message[1], json({{"id", ids[1]}, {"type", "function"}, {"function", {{"name", "ping"}, {"arguments", "{}"}}}}));
}

struct Answer {
  Completion c;
  std::string streamed;  // the deltas, joined
  size_t logprobs = 0;   // logprob entries sent with the deltas
};

Answer Ask(ChatService& service, const json& body) {
  Answer a;
  CompletionCallbacks cb;
  cb.on_delta = [&](const std::string& d, const json& logprobs) {
    a.streamed += d;
    if (logprobs.is_object()) a.logprobs += logprobs["content"].size();
  };
  a.c = service.Prepare(ParseChatRequest(body.dump(), ServerLimits{}))->Run(cb);
  return a;
}

// The template's render of `messages` with `tools`, tokenized as the engine reads it.
std::vector<int64_t> Rendered(const Engine& e, const std::vector<ChatMessage>& messages, const json& tools) {
  ChatTemplateOptions o;
  for (const json& t : tools) o.tools.push_back(t.dump());
  const auto ids = e.tokenizer().Encode(e.chat_template().Render(messages, o));
  return {ids.begin(), ids.end()};
}

TEST(ServerTools, ScriptedCallsComeBackAsToolCallsAndTheLoopContinuesTheHeldConversation) {
  auto engine = Engine::Load(DefaultDemoModelDir());
  ChatService service(engine, ServerLimits{});
  const json tools = {kWeather, kPing};
  const json user = {{"role", "user"}, {"content", "Weather in Paris and Rome?"}};
  const std::string two_calls = "Let me check.\n\n" + Call("get_weather", {{"city", "Paris"}}) + "\n" +
                                Call("get_weather", {{"city", "Rome"}, {"days", "2"}});
  auto body = [&](const json& messages, const std::string& forced) {
    return json{{"messages", messages}, {"tools", tools}, {"max_tokens", 4}, {"temperature", 0},
                {"glance", {{"forced_answer", forced}}}};
  };
  const Answer first = Ask(service, body(json::array({user}), two_calls));
  EXPECT_EQ(first.c.finish_reason, "tool_calls");
  EXPECT_EQ(first.c.text, "Let me check.");
  EXPECT_EQ(first.streamed, "Let me check.");  // the calls' text never went out as content
  ASSERT_EQ(first.c.tool_calls.size(), 2u);
  EXPECT_EQ(first.c.tool_calls[0].name, "get_weather");
  EXPECT_EQ(json::parse(first.c.tool_calls[0].arguments), json({{"city", "Paris"}}));
  EXPECT_EQ(json::parse(first.c.tool_calls[1].arguments), json({{"city", "Rome"}, {"days", 2}}));
  ASSERT_EQ(first.c.tool_call_ids.size(), 2u);
  EXPECT_NE(first.c.tool_call_ids[0], first.c.tool_call_ids[1]);
  // With logprobs, every token's entry goes out, the held call tokens' with an empty delta.
  json with_logprobs = body(json::array({user}), two_calls);
  with_logprobs["logprobs"] = true;
  const Answer scored = Ask(service, with_logprobs);
  EXPECT_EQ(scored.c.tool_calls.size(), 2u);
  EXPECT_EQ(scored.logprobs, static_cast<size_t>(scored.c.completion_tokens));
  EXPECT_EQ(scored.c.logprobs["content"].size(), static_cast<size_t>(scored.c.completion_tokens));
  // The prompt is the template's render with the tools block.
  const ChatMessage u = ChatMessage::FromText("user", "Weather in Paris and Rome?");
  EXPECT_EQ(first.c.prompt_ids, Rendered(*engine, {u}, tools));

  // The client sends the calls back with their results: the held conversation continues, and
  // the prompt equals the template's render of the whole loop.
  json assistant = {{"role", "assistant"}, {"content", first.c.text}, {"tool_calls", json::array()}};
  for (size_t i = 0; i < 2; ++i)
    assistant["tool_calls"].push_back({{"id", first.c.tool_call_ids[i]}, {"type", "function"},
                                       {"function", {{"name", first.c.tool_calls[i].name},
                                                     {"arguments", first.c.tool_calls[i].arguments}}}});
  const json loop = {user, assistant,
                     {{"role", "tool"}, {"tool_call_id", first.c.tool_call_ids[0]}, {"content", "21 C"}},
                     {{"role", "tool"}, {"tool_call_id", first.c.tool_call_ids[1]}, {"content", "25 C"}}};
  const Answer second = Ask(service, body(loop, "Paris 21 C, Rome 25 C."));
  EXPECT_EQ(second.c.finish_reason, "stop");
  EXPECT_EQ(second.c.text, "Paris 21 C, Rome 25 C.");
  EXPECT_TRUE(second.c.tool_calls.empty());
  EXPECT_GT(second.c.reused_tokens, static_cast<int>(first.c.prompt_ids.size()) - 16);
  ChatMessage a = ChatMessage::FromText("assistant", "Let me check.");
  a.tool_calls = {{"get_weather", R"({"city":"Paris"})"}, {"get_weather", R"({"city":"Rome","days":2})"}};
  const std::vector<int64_t> want =
      Rendered(*engine, {u, a, ChatMessage::FromText("tool", "21 C"), ChatMessage::FromText("tool", "25 C")}, tools);
  EXPECT_EQ(second.c.prompt_ids, want);
  // The same history sent to a server that does not hold it is taken up with the same prompt.
  ChatService fresh(engine, ServerLimits{});
  const Answer taken = Ask(fresh, body(loop, "Paris 21 C, Rome 25 C."));
  EXPECT_EQ(taken.c.prompt_ids, want);
  EXPECT_EQ(taken.c.text, second.c.text);
  // Then a user message after the answer: the calls' turn is now before the last user query,
  // so the template renders it without its think block, and the prompt follows the render.
  json more = loop;
  more.push_back({{"role", "assistant"}, {"content", second.c.text}});
  more.push_back({{"role", "user"}, {"content", "Thanks!"}});
  const Answer third = Ask(fresh, body(more, "You're welcome."));
  EXPECT_EQ(third.c.text, "You're welcome.");
  EXPECT_EQ(third.c.prompt_ids,
            Rendered(*engine, {u, a, ChatMessage::FromText("tool", "21 C"), ChatMessage::FromText("tool", "25 C"),
                               ChatMessage::FromText("assistant", second.c.text), ChatMessage::FromText("user", "Thanks!")},
                     tools));
}

// Stop sequences (issue 34: one implementation in core, GenerateOptions::stop, shared with the
// desktop app): the answer ends before the first one, which is neither streamed nor returned;
// finish_reason "stop"; the conversation goes on with the answer as the client got it.
TEST(ServerStop, StopSequencesEndTheAnswerAndTheHeldConversationContinues) {
  auto engine = Engine::Load(DefaultDemoModelDir());
  ChatService service(engine, ServerLimits{});
  const json user = {{"role", "user"}, {"content", "Weather in Paris?"}};
  auto body = [&](const json& messages, const json& stop) {
    json b = {{"messages", messages}, {"max_tokens", 32}, {"temperature", 0},
              {"glance", {{"forced_answer", "Sunny and warm. END of the report."}}}};
    if (!stop.is_null()) b["stop"] = stop;
    return b;
  };
  const Answer plain = Ask(service, body(json::array({user}), nullptr));  // control: no stop, the whole answer
  EXPECT_EQ(plain.c.text, "Sunny and warm. END of the report.");
  ChatService fresh(engine, ServerLimits{});
  const Answer cut = Ask(fresh, body(json::array({user}), json::array({"END", "nothing"})));
  EXPECT_EQ(cut.c.text, "Sunny and warm. ");
  EXPECT_EQ(cut.streamed, "Sunny and warm. ");
  EXPECT_EQ(cut.c.finish_reason, "stop");
  const json next = json::array({user, {{"role", "assistant"}, {"content", cut.c.text}}, {{"role", "user"}, {"content", "And Rome?"}}});
  const Answer more = Ask(fresh, body(next, nullptr));  // the cut answer sent back: taken up as it is
  EXPECT_EQ(more.c.text, plain.c.text);
  EXPECT_EQ(more.c.finish_reason, "stop");
}

TEST(ServerTools, ABadCallIsReturnedAsTextNeverGuessedAt) {
  auto engine = Engine::Load(DefaultDemoModelDir());
  ChatService service(engine, ServerLimits{});
  const json user = {{"role", "user"}, {"content", "Weather?"}};
  auto body = [&](const std::string& forced, const json& extra) {
    json b = {{"messages", {user}}, {"tools", {kWeather}}, {"max_tokens", 4}, {"temperature", 0},
              {"glance", {{"forced_answer", forced}}}};
    b.update(extra);
    return b;
  };
  const std::string good = Call("get_weather", {{"city", "Paris"}});
  const std::vector<std::string> bad = {
      Call("launch_rockets", {}),                                      // not one of the tools
      Call("get_weather", {{"city", "Paris"}, {"days", "three"}}),     // not an integer
      good.substr(0, good.size() - 5),                                 // not closed
      "Sure. " + good + " Done.",                                      // text after the call
  };
  for (const std::string& answer : bad) {
    const Answer a = Ask(service, body(answer, json::object()));
    EXPECT_EQ(a.c.finish_reason, "stop") << answer;
    EXPECT_TRUE(a.c.tool_calls.empty()) << answer;
    EXPECT_EQ(a.c.text, answer);
    EXPECT_EQ(a.streamed, answer);  // the held text went out at the end
  }
  // tool_choice none: tools rendered, the answer not parsed; parallel_tool_calls false: two calls are text.
  const Answer none = Ask(service, body(good, {{"tool_choice", "none"}}));
  EXPECT_TRUE(none.c.tool_calls.empty());
  EXPECT_EQ(none.c.text, good);
  EXPECT_EQ(none.c.finish_reason, "stop");
  const Answer serial = Ask(service, body(good + "\n" + good, {{"parallel_tool_calls", false}}));
  EXPECT_TRUE(serial.c.tool_calls.empty());
  const Answer control = Ask(service, body(good, json::object()));
  ASSERT_EQ(control.c.tool_calls.size(), 1u);
  EXPECT_EQ(control.c.text, "");
  EXPECT_EQ(control.c.finish_reason, "tool_calls");
}

// tool_choice required / named: whatever the sampler draws, the answer is well-formed calls.
TEST(ServerTools, RequiredAndNamedChoicesGiveWellFormedCallsWhateverIsSampled) {
  auto engine = Engine::Load(DefaultDemoModelDir());
  ChatService service(engine, ServerLimits{});
  const json count = {{"type", "function"},
                      {"function", {{"name", "count"},
                                    {"parameters", {{"type", "object"},
                                                    {"properties", {{"n", {{"type", "integer"}}},
                                                                    {"kind", {{"enum", {"a", "b"}}}},
                                                                    {"ok", {{"type", "boolean"}}}}},
                                                    {"required", {"n"}}}}}}};
  const json tools = {count, kPing};
  int finished = 0;
  std::set<std::string> names;
  for (int seed = 1; seed <= 12; ++seed) {
    const bool named = seed % 3 == 0;
    json b = {{"messages", {{{"role", "user"}, {"content", "Count."}}}}, {"tools", tools}, {"max_tokens", 300},
              {"temperature", 1}, {"seed", seed}};
    b["tool_choice"] = named ? json({{"type", "function"}, {"function", {{"name", "count"}}}}) : json("required");
    const Answer a = Ask(service, b);
    const std::string raw = a.c.turn.text;
    // Every answer, finished or cut by max_tokens, is a prefix of well-formed calls.
    const text::ToolCallAutomaton automaton({count.dump(), kPing.dump()}, named ? "count" : "", named ? 1 : 16);
    text::ToolCallState s = automaton.Start();
    EXPECT_TRUE(automaton.Feed(s, raw)) << raw;
    if (a.c.turn.stop_reason != "eos") continue;
    ++finished;
    EXPECT_EQ(a.c.finish_reason, "tool_calls") << raw;
    ASSERT_FALSE(a.c.tool_calls.empty()) << raw;
    if (named) {
      EXPECT_EQ(a.c.tool_calls.size(), 1u);
    }
    for (const ToolCall& c : a.c.tool_calls) {
      names.insert(c.name);
      if (named) {
        EXPECT_EQ(c.name, "count");
      }
      const json args = json::parse(c.arguments);
      if (c.name == "count") {
        EXPECT_TRUE(args.contains("n") && args["n"].is_number_integer()) << c.arguments;
      }
    }
  }
  std::printf("required/named: %d of 12 answers finished\n", finished);
  EXPECT_GE(finished, 4);
  EXPECT_TRUE(names.count("count")) << "no sampled answer called count";
}

}  // namespace
}  // namespace glance::server

namespace glance::server {
namespace {

// /v1/responses: function tools and function_call / function_call_output input items become the
// chat request's tools, an assistant message's tool_calls and tool messages.
TEST(ServerTools, ResponsesToolItemsBecomeChatToolMessages) {
  ResponseStore store;
  const ResponsesRequest r = ParseResponsesRequest(R"({"input":[
      {"role":"user","content":"Weather in Paris and Rome?"},
      {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Checking."}]},
      {"type":"function_call","id":"fc_1","call_id":"call_a","name":"get_weather","arguments":"{\"city\":\"Paris\"}","status":"completed"},
      {"type":"function_call","call_id":"call_b","name":"get_weather","arguments":"{\"city\":\"Rome\"}"},
      {"type":"function_call_output","call_id":"call_a","output":"21 C"},
      {"type":"function_call_output","call_id":"call_b","output":"25 C"}],
    "tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}],
    "tool_choice":{"type":"function","name":"get_weather"},"parallel_tool_calls":false})", {}, store);
  const auto& m = r.chat.messages;
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[1].role, "assistant");
  EXPECT_EQ(m[1].text, "Checking.");
  ASSERT_EQ(m[1].tool_calls.size(), 2u);
  EXPECT_EQ(m[1].tool_calls[1].name, "get_weather");
  EXPECT_EQ(m[1].tool_calls[1].arguments, R"({"city":"Rome"})");
  EXPECT_EQ(m[2].role, "tool");
  EXPECT_EQ(m[2].tool_call_id, "call_a");
  EXPECT_EQ(m[3].text, "25 C");
  ASSERT_EQ(r.chat.tools.size(), 1u);
  EXPECT_EQ(json::parse(r.chat.tools[0])["function"]["name"], "get_weather");
  EXPECT_EQ(r.chat.tool_choice, ChatRequest::ToolChoice::kFunction);
  EXPECT_FALSE(r.chat.parallel_tool_calls);
  // A named choice outside the tools is named as this request's field.
  std::string param;
  EXPECT_EQ(StatusOf([&] { ParseResponsesRequest(R"({"input":"x","tools":[],"tool_choice":{"type":"function","name":"nope"}})", {}, store); },
                     &param), 400);
  EXPECT_EQ(param, "tool_choice.name");
}

}  // namespace
}  // namespace glance::server
