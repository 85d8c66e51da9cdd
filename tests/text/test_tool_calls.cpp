// Tool use in the chat template and in answers (issue 29): the template's tojson and string
// filters as Python writes them, a call rendered by the template parsed back into the same
// call, and badly written calls left as text.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/text/chat_template.h"
#include "core/text/python_json.h"
#include "core/text/tool_call_automaton.h"
#include "core/text/tool_call_parser.h"
#include "core/util/error.h"

using namespace glance;

namespace {

const std::vector<std::string> kTools = {
    R"({"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"},"metric":{"type":"boolean"},"where":{"type":"object"}}}}})",
    R"({"type":"function","function":{"name":"tag_image","parameters":{"type":"object","properties":{"tags":{"type":"array"}}}}})"};

ChatTemplate Template() {
  return ChatTemplate::FromModelDir(GLANCE_TEST_DATA "/tiny-a");
}

// The answer part of an assistant message as the template renders it.
std::string RenderedCall(const std::vector<ToolCall>& calls, const std::string& content) {
  ChatMessage user = ChatMessage::FromText("user", "hi");
  ChatMessage a = ChatMessage::FromText("assistant", content);
  a.tool_calls = calls;
  ChatTemplateOptions o;
  o.add_generation_prompt = false;
  const std::string text = Template().Render({user, a, ChatMessage::FromText("user", "next")}, o);
  const std::string open = "<|im_start|>assistant\n";
  const size_t at = text.find(open) + open.size();
  return text.substr(at, text.find("<|im_end|>", at) - at);
}

}  // namespace

// What Python prints (json.dumps(x, ensure_ascii=False); str(x)) for these values.
TEST(PythonJson, DumpsAndStrAsPythonWritesThem) {
  const auto j = nlohmann::ordered_json::parse(R"({"b": 1, "a": [1.5, 2.0, "x\"y", null, true], "é": {}})");
  EXPECT_EQ(PythonJsonDumps(j), R"({"b": 1, "a": [1.5, 2.0, "x\"y", null, true], "é": {}})");
  EXPECT_EQ(PythonStr(nlohmann::ordered_json(true)), "True");
  EXPECT_EQ(PythonStr(nlohmann::ordered_json(false)), "False");
  EXPECT_EQ(PythonStr(nlohmann::ordered_json(nullptr)), "None");
  EXPECT_EQ(PythonStr(nlohmann::ordered_json(2.0)), "2.0");
  EXPECT_EQ(PythonStr(nlohmann::ordered_json(3)), "3");
  EXPECT_EQ(PythonStr(nlohmann::ordered_json("plain")), "plain");
}

TEST(ToolCalls, TheTemplatesCallFormatParsesBackIntoTheSameCalls) {
  const std::vector<ToolCall> calls = {
      {"get_weather", R"({"city":"Zürich \"centre\"\nline two","days":3,"metric":true,"where":{"x":1}})"},
      {"tag_image", R"({"tags":["cat","table"]})"},
      {"get_weather", "{}"}};
  for (const std::string content : {"", "Let me check."}) {
    const std::string answer = RenderedCall(calls, content);
    const ParsedToolCalls p = ParseToolCalls(answer, kTools);
    ASSERT_TRUE(p.ok) << p.problem << "\n" << answer;
    EXPECT_EQ(p.content, content);
    ASSERT_EQ(p.calls.size(), calls.size());
    for (size_t k = 0; k < calls.size(); ++k) {
      EXPECT_EQ(p.calls[k].name, calls[k].name);
      EXPECT_EQ(nlohmann::json::parse(p.calls[k].arguments), nlohmann::json::parse(calls[k].arguments)) << k;
    }
  }
}

TEST(ToolCalls, ABadlyWrittenCallStaysText) {
  const std::string good = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>";
  ASSERT_TRUE(ParseToolCalls(good, kTools).ok);  // control
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"<tool_call>\n<function=launch_rockets>\n</function>\n</tool_call>", "not one of the request's tools"},
      {"<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n", "does not close"},
      {"<tool_call>\n<function=get_weather>\n<parameter=days>\nthree\n</parameter>\n</function>\n</tool_call>", "not a integer"},
      {"<tool_call>\n<function=get_weather>\n<parameter=metric>\nyes\n</parameter>\n</function>\n</tool_call>", "not a boolean"},
      {good + " and then more text", "text after a tool call"},
      {"<tool_call>\n<function=get_weather>\nstray\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>", "text between"},
  };
  for (const auto& [answer, why] : bad) {
    const ParsedToolCalls p = ParseToolCalls(answer, kTools);
    EXPECT_FALSE(p.ok) << answer;
    EXPECT_EQ(p.content, answer);
    EXPECT_NE(p.problem.find(why), std::string::npos) << p.problem;
  }
  // No tools in the request, or no call in the answer: plain text, no problem.
  EXPECT_FALSE(ParseToolCalls(good, {}).ok);
  EXPECT_TRUE(ParseToolCalls("It is sunny.", kTools).problem.empty());
}

TEST(ToolCalls, AStreamHoldsBackWhatMayStartACall) {
  EXPECT_TRUE(MayStartToolCall("Sure. <tool_c"));
  EXPECT_TRUE(MayStartToolCall("<"));
  EXPECT_TRUE(MayStartToolCall("x <tool_call>\n<function="));
  EXPECT_FALSE(MayStartToolCall("It is sunny."));
  EXPECT_FALSE(MayStartToolCall("a < b"));
}

TEST(ToolCalls, ToolResultsShareOneUserTurn) {
  ChatMessage a = ChatMessage::FromText("assistant", "");
  a.tool_calls = {{"get_weather", R"({"city":"Paris"})"}, {"get_weather", R"({"city":"Rome"})"}};
  ChatTemplateOptions o;
  o.tools = kTools;
  const std::string text = Template().Render(
      {ChatMessage::FromText("user", "weather?"), a, ChatMessage::FromText("tool", "21"), ChatMessage::FromText("tool", "25")}, o);
  EXPECT_NE(text.find("<|im_start|>user\n<tool_response>\n21\n</tool_response>\n<tool_response>\n25\n</tool_response><|im_end|>\n"),
            std::string::npos) << text;
  EXPECT_EQ(text.find("<|im_start|>system\n# Tools"), 0u) << text;
  o.tools = {"{not json"};
  EXPECT_THROW(Template().Render({ChatMessage::FromText("user", "x")}, o), Error);
}

// The constrained language of tool_choice required / a named function: the template's own
// calls are accepted (booleans aside: the template writes Python's True, the constraint JSON's
// true, which the parser also reads); every answer it accepts parses into calls; bad ones are
// refused at the first wrong byte.
TEST(ToolCallAutomaton, AcceptsWellFormedCallsOnlyAndEveryAcceptedAnswerParses) {
  const std::vector<std::string> tools = {
      R"({"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"},"metric":{"type":"boolean"},"where":{"type":"object"}},"required":["city"]}}})",
      R"({"type":"function","function":{"name":"tag_image","parameters":{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}}}})"};
  const text::ToolCallAutomaton any(tools, "", 3);
  const std::vector<ToolCall> calls = {{"get_weather", R"({"city":"Zürich </param\nline","days":3,"where":{"x":[1,2]}})"},
                                       {"tag_image", R"({"tags":["cat","table"]})"}};
  const std::string rendered = RenderedCall(calls, "");
  EXPECT_TRUE(any.Accepts(rendered)) << rendered;
  const std::string with_bool =
      "<tool_call>\n<function=get_weather>\n<parameter=metric>\ntrue\n</parameter>\n<parameter=city>\nParis\n"
      "</parameter>\n</function>\n</tool_call>";
  EXPECT_TRUE(any.Accepts(with_bool));
  for (const std::string& answer : {rendered, with_bool}) {
    const ParsedToolCalls p = ParseToolCalls(answer, tools);
    EXPECT_TRUE(p.ok) << p.problem << "\n" << answer;
  }
  const std::string one = "<tool_call>\n<function=tag_image>\n</function>\n</tool_call>";
  EXPECT_TRUE(any.Accepts(one));
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"Sure. " + one, "text before the call"},
      {"<tool_call>\n<function=launch_rockets>\n</function>\n</tool_call>", "an unknown function"},
      {"<tool_call>\n<function=get_weather>\n</function>\n</tool_call>", "a required parameter left out"},
      {"<tool_call>\n<function=get_weather>\n<parameter=city>\nA\n</parameter>\n<parameter=city>\nB\n</parameter>\n"
       "</function>\n</tool_call>", "a parameter twice"},
      {"<tool_call>\n<function=get_weather>\n<parameter=city>\nA\n</parameter>\n<parameter=days>\nthree\n</parameter>\n"
       "</function>\n</tool_call>", "a non-integer"},
      {"<tool_call>\n<function=get_weather>\n<parameter=city>\nA\n</parameter>\n<parameter=metric>\nTrue\n</parameter>\n"
       "</function>\n</tool_call>", "Python's True"},
      {"<tool_call>\n<function=tag_image>\n<parameter=tags>\n[1]\n</parameter>\n</function>\n</tool_call>", "wrong item type"},
      {"<tool_call>\n<function=tag_image>\n<parameter=colour>\nred\n</parameter>\n</function>\n</tool_call>", "an unknown key"},
      {one + "\n" + one + "\n" + one + "\n" + one, "more calls than allowed"},
      {one + " and more", "text after the call"},
  };
  for (const auto& [answer, why] : refused) EXPECT_FALSE(any.Accepts(answer)) << why;
  // A prefix of a call is not a whole answer (the stop token is refused there).
  text::ToolCallState s = any.Start();
  EXPECT_TRUE(any.Feed(s, one.substr(0, 20)));
  EXPECT_FALSE(any.CanEnd(s));
  EXPECT_TRUE(any.Feed(s, one.substr(20)));
  EXPECT_TRUE(any.CanEnd(s));

  // A named function: only that one, once.
  const text::ToolCallAutomaton named(tools, "tag_image", 1);
  EXPECT_TRUE(named.Accepts(one));
  EXPECT_FALSE(named.Accepts(one + "\n" + one));
  EXPECT_FALSE(named.Accepts(with_bool));
  // A parameter schema the grammar cannot enforce is refused, naming where it is.
  try {
    text::ToolCallAutomaton(
        {R"({"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"n":{"type":"integer","minimum":5}}}}})"},
        "", 1);
    ADD_FAILURE() << "minimum 5 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tools[0].function.parameters.properties.n"), std::string::npos) << e.what();
  }
}
