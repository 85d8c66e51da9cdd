// `glance-cli tokenize` on the bundled demo model: stdin text -> JSON ids, --decode back.
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "core/text/tokenizer.h"
#include "tests/text/text_test_util.h"

namespace glance {
namespace {

namespace fs = std::filesystem;

struct RunResult {
  int exit_code;
  std::string out;
};

// Runs glance-cli with `input` on stdin; stdout captured, stderr to a file.
RunResult RunCli(const std::string& args, const std::string& input) {
  const fs::path dir = fs::temp_directory_path() / ("glance_cli_tok_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string in = (dir / "in.txt").string();
  test::WriteFile(in, input);
  const std::string cmd = std::string("\"") + GLANCE_BINARY_DIR + "/app/glance-cli\" tokenize " + args + " < \"" +
                          in + "\" 2>\"" + (dir / "err.txt").string() + "\"";
  RunResult r{-1, ""};
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  fs::remove_all(dir);
  return r;
}

const std::string kDemo = std::string(GLANCE_SOURCE_RESOURCES) + "/demo-model";

TEST(CliTokenize, EncodesStdinAsJsonIds) {
  const std::string text = "<|im_start|>user\nHello, 世界 😀<|im_end|>\n";
  const RunResult r = RunCli("\"" + kDemo + "\"", text);
  ASSERT_EQ(r.exit_code, 0);
  const auto ids = nlohmann::json::parse(r.out).get<std::vector<int32_t>>();
  const Tokenizer t = Tokenizer::FromFile(kDemo + "/tokenizer.json");
  EXPECT_EQ(ids, t.Encode(text));
  EXPECT_EQ(ids.front(), t.TokenId("<|im_start|>"));
}

TEST(CliTokenize, DecodesJsonIds) {
  const Tokenizer t = Tokenizer::FromFile(kDemo + "/tokenizer.json");
  const std::string text = "Describe this image. 你好";
  const RunResult r = RunCli("\"" + kDemo + "\" --decode", nlohmann::json(t.Encode(text)).dump());
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, text);
}

TEST(CliTokenize, BadInputFailsWithNonZeroExit) {
  EXPECT_NE(RunCli("\"" + kDemo + "\"", "bad \xFF utf8").exit_code, 0);
  EXPECT_NE(RunCli("\"" + kDemo + "\" --decode", "[1, 2,").exit_code, 0);
  EXPECT_NE(RunCli("\"" + kDemo + "\" --decode", "[99999999]").exit_code, 0);
  EXPECT_NE(RunCli("\"" + kDemo + "\" --decode", "{\"a\":1}").exit_code, 0);
  EXPECT_NE(RunCli("/nonexistent/model", "x").exit_code, 0);
  EXPECT_NE(RunCli("", "x").exit_code, 0);
}

TEST(CliTokenize, EmptyInputGivesEmptyArray) {
  const RunResult r = RunCli("\"" + kDemo + "\"", "");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(r.out), nlohmann::json::array());
}

}  // namespace
}  // namespace glance
