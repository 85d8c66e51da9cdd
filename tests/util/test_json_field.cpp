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

// A number the field's type cannot hold is an error naming the field (it used to be a cast:
// undefined for 1e300 into an integer, found by the model_json fuzz harness in
// preprocessor_config.json's min_pixels; a silent wrap for 2^40 into an int).
TEST(JsonField, NumbersTheTypeCannotHoldAreRefusedNotCast) {
  const json j = json::parse(R"({"huge": 3.1e101, "inf_int": 1e300, "frac": 2.5, "whole": 3136.0,
      "wide": 1099511627776, "neg": -1, "u64": 18446744073709551615, "big_float": 1e300,
      "edge": 2147483647, "edge_up": 2147483648, "low": -2147483648, "low_down": -2147483649,
      "i64_top": 9.223372036854775807e18})");
  const auto msg = [&](auto reader) { return Message(reader); };
  EXPECT_EQ(msg([&] { RequiredField<int64_t>(j, "huge", "p.json"); }),
            "p.json: field 'huge' must be a whole number from -9223372036854775808 to 9223372036854775807 (found 3.1e+101)");
  EXPECT_NE(msg([&] { RequiredField<int>(j, "inf_int", "p.json"); }).find("field 'inf_int' must be a whole number"), std::string::npos);
  EXPECT_NE(msg([&] { RequiredField<int>(j, "frac", "p.json"); }).find("field 'frac' must be a whole number"), std::string::npos);
  EXPECT_NE(msg([&] { RequiredField<int>(j, "wide", "p.json"); }).find("from -2147483648 to 2147483647"), std::string::npos);
  EXPECT_NE(msg([&] { RequiredField<uint32_t>(j, "neg", "p.json"); }).find("from 0 to 4294967295"), std::string::npos);
  EXPECT_NE(msg([&] { RequiredField<int64_t>(j, "u64", "p.json"); }).find("field 'u64'"), std::string::npos);
  EXPECT_NE(msg([&] { RequiredField<float>(j, "big_float", "p.json"); }).find("a number a float holds"), std::string::npos);
  EXPECT_NE(msg([&] { RequiredField<int64_t>(j, "i64_top", "p.json"); }).find("field 'i64_top'"), std::string::npos);  // = 2^63
  EXPECT_NE(msg([&] { RequiredField<int>(j, "edge_up", "p.json"); }).find("field 'edge_up'"), std::string::npos);
  EXPECT_NE(msg([&] { RequiredField<int>(j, "low_down", "p.json"); }).find("field 'low_down'"), std::string::npos);
  // Controls: what the type holds is read, a whole number written as a float included.
  EXPECT_EQ(RequiredField<int64_t>(j, "whole", "p.json"), 3136);
  EXPECT_EQ(RequiredField<int>(j, "edge", "p.json"), 2147483647);
  EXPECT_EQ(RequiredField<int>(j, "low", "p.json"), -2147483648);
  EXPECT_EQ(RequiredField<int64_t>(j, "wide", "p.json"), 1099511627776);
  EXPECT_EQ(RequiredField<uint64_t>(j, "u64", "p.json"), 18446744073709551615u);
  EXPECT_EQ(RequiredField<double>(j, "big_float", "p.json"), 1e300);
  EXPECT_EQ(RequiredField<int>(j, "neg", "p.json"), -1);
  EXPECT_FLOAT_EQ(RequiredField<float>(j, "frac", "p.json"), 2.5f);
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
