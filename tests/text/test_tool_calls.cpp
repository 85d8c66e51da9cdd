// Tool use in the chat template and in answers (issue 29): the template's tojson and string
// filters as Python writes them, a call rendered by the template parsed back into the same
// call, and badly written calls left as text.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/text/chat_template.h"
#include "core/text/python_json.h"
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
