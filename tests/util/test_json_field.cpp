// core/util/json_field.h: required and optional typed fields, null as absent, strict numbers, and
// messages that name the source, the field and (shortened) what was found.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "core/util/json_field.h"

using namespace glance;
using nlohmann::json;

namespace {

std::string Message(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(JsonField, RequiredFieldsReadTheirTypeAndNameWhatIsWrong) {
  const json j = {{"n", 3}, {"s", "x"}, {"v", {1.5, 2.5}}, {"nil", nullptr}, {"flag", true}};
  EXPECT_EQ(RequiredField<int>(j, "n", "a.json"), 3);
  EXPECT_EQ(RequiredField<std::string>(j, "s", "a.json"), "x");
  EXPECT_EQ(RequiredField<std::vector<double>>(j, "v", "a.json"), (std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(Message([&] { RequiredField<int>(j, "gone", "a.json"); }), "a.json: field 'gone' is missing");
  EXPECT_EQ(Message([&] { RequiredField<int>(j, "nil", "a.json"); }), "a.json: field 'nil' is missing");
  EXPECT_EQ(Message([&] { RequiredField<int>(j, "s", "a.json"); }), "a.json: field 's' has the wrong type (found \"x\")");
  // nlohmann would read true as 1; a number field refuses it.
  EXPECT_EQ(Message([&] { RequiredField<float>(j, "flag", "a.json"); }),
            "a.json: field 'flag' has the wrong type (found true)");
  EXPECT_TRUE(RequiredField<bool>(j, "flag", "a.json"));
  EXPECT_EQ(Message([&] { RequiredField<int>(json::array(), "n", "a.json"); }), "a.json: field 'n' is missing");
}

TEST(JsonField, OptionalFieldsFallBackWhenAbsentOrNull) {
  const json j = {{"n", 3}, {"nil", nullptr}, {"s", "x"}};
  EXPECT_EQ(OptionalField<int>(j, "n", 7, "b"), 3);
  EXPECT_EQ(OptionalField<int>(j, "gone", 7, "b"), 7);
  EXPECT_EQ(OptionalField<int>(j, "nil", 7, "b"), 7);
  EXPECT_THROW(OptionalField<double>(j, "s", 1.0, "b"), Error);
  EXPECT_TRUE(HasField(j, "n"));
  EXPECT_FALSE(HasField(j, "nil"));
  EXPECT_FALSE(HasField(j, "gone"));
}

TEST(JsonField, AWrongValueIsShortenedInTheMessage) {
  const json j = {{"big", std::vector<int>(1000, 7)}};
  const std::string m = Message([&] { RequiredField<std::string>(j, "big", "c"); });
  EXPECT_LT(m.size(), 140u) << m;
  EXPECT_NE(m.find("..."), std::string::npos) << m;
}

TEST(JsonField, ReadJsonFileNamesTheFileThatFails) {
  const std::string dir = (std::filesystem::temp_directory_path() / ("glance-json-field-" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(dir);
  const std::string good = dir + "/good.json", bad = dir + "/bad.json";
  std::ofstream(good) << R"({"a": [1, 2]})";
  std::ofstream(bad) << R"({"a": )";
  EXPECT_EQ(ReadJsonFile(good, "cannot open").at("a").size(), 2u);
  EXPECT_EQ(Message([&] { ReadJsonFile(dir + "/none.json", "cannot open none.json"); }), "cannot open none.json");
  const std::string parse = Message([&] { ReadJsonFile(bad, "x"); });
  EXPECT_EQ(parse.rfind(bad + " is not valid JSON: ", 0), 0u) << parse;
  // Where and what for the user, without the library's own error tag.
  EXPECT_NE(parse.find("line 1, column 7"), std::string::npos) << parse;
  EXPECT_EQ(parse.find("[json.exception"), std::string::npos) << parse;
  std::filesystem::remove_all(dir);
}

}  // namespace
