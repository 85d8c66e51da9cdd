// glance-cli make-model / info, run as the real binary.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/model/temp_dir.h"

using glance::test::TempDir;
using nlohmann::json;

namespace {

const std::string kCli = std::string(GLANCE_BINARY_DIR) + "/app/glance-cli";

struct CliRun {
  int rc = -1;
  std::string out;  // stdout + stderr
};

CliRun RunCli(const std::string& args) {
  CliRun r;
  FILE* p = ::popen((kCli + " " + args + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace

TEST(ModelCli, MakeTinyThenInfo) {
  TempDir dir;
  const std::string out = dir / "m";
  const CliRun make = RunCli("make-model --shape tiny --out " + out + " --seed 3 --quiet");
  ASSERT_EQ(make.rc, 0) << make.out;
  EXPECT_NE(make.out.find("157 tensors"), std::string::npos) << make.out;  // 142 + 15 mtp.*

  const CliRun info = RunCli("info " + out + " --json");
  ASSERT_EQ(info.rc, 0) << info.out;
  const json j = json::parse(info.out);
  EXPECT_EQ(j["tensors"], 157);
  EXPECT_EQ(j["mtp_layer"], true);
  EXPECT_EQ(j["text"]["layers"], 8);
  EXPECT_EQ(j["text"]["layer_pattern"], "(L,L,L,F)x2");
  EXPECT_EQ(j["vision"]["out_hidden_size"], 64);
  EXPECT_EQ(j["weights_match_config"], true);
  EXPECT_EQ(j["tokenizer"], true);
  EXPECT_EQ(j["chat_template"], "chat_template.jinja");
  EXPECT_EQ(j["bytes_by_dtype"]["F32"], 6 * 4 * 4);  // six A_log [4] in F32
  const CliRun text = RunCli("info " + out);
  EXPECT_EQ(text.rc, 0);
  EXPECT_NE(text.out.find("8 layers (L,L,L,F)x2"), std::string::npos) << text.out;
}

TEST(ModelCli, InfoOnTheGoldenCheckpoint) {
  const CliRun info = RunCli(std::string("info ") + GLANCE_TEST_DATA + "/tiny-a --json");
  ASSERT_EQ(info.rc, 0) << info.out;
  const json j = json::parse(info.out);
  EXPECT_EQ(j["tensors"], 142);
  EXPECT_EQ(j["mtp_layer"], false);
  EXPECT_EQ(j["weights_match_config"], true);
  EXPECT_TRUE(j["unexpected_tensors"].empty());
}

TEST(ModelCli, InfoExplainsWhatIsMissing) {
  TempDir dir;
  CliRun r = RunCli("info " + dir.path());
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("config.json is missing"), std::string::npos) << r.out;
  std::filesystem::copy_file(std::string(GLANCE_TEST_DATA) + "/tiny-a/config.json", dir / "config.json");
  r = RunCli("info " + dir.path());
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("no weights"), std::string::npos) << r.out;
  r = RunCli("info /nonexistent/folder");
  EXPECT_NE(r.out.find("does not exist"), std::string::npos) << r.out;
  r = RunCli("make-model --shape 9b --out " + (dir / "x"));
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("tiny, 0.8b, 2b or 4b"), std::string::npos) << r.out;
}
