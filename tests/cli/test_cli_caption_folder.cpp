// `glance-cli caption DIR --out FILE` on the demo model: real images captioned, a broken file
// and a text file in the folder reported and skipped (the run goes on), a second run resumes
// without captioning anything again, CSV output, plain progress lines when stderr is no terminal.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_process.h"
#include "tests/model/temp_dir.h"

namespace glance::test {
namespace {

namespace fs = std::filesystem;

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Three images: the demo image, and two copies with different trailing bytes (decoders stop at
// the image's end, so they decode the same but hash differently); one broken "image".
void MakeFolder(const TempDir& d) {
  const std::string demo = std::string(GLANCE_SOURCE_RESOURCES) + "/demo-image.png";
  fs::copy_file(demo, d / "a.png");
  fs::copy_file(demo, d / "b.png");
  std::ofstream(d / "b.png", std::ios::app | std::ios::binary) << "trailing b";
  std::ofstream(d / "broken.jpg", std::ios::binary) << "this is not a JPEG";
  std::ofstream(d / "notes.txt") << "ignored";
}

TEST(CliCaptionFolder, CaptionsSkipsBadFilesAndResumes) {
  TempDir d;
  MakeFolder(d);
  const std::string out = d / "captions.jsonl";
  CliProcess first({"caption", d.path(), "--out", out, "--max-tokens", "3"});
  EXPECT_EQ(first.Wait(300), 1) << first.err;  // non-zero: one file was skipped
  EXPECT_NE(first.err.find("skipped broken.jpg"), std::string::npos) << first.err;
  EXPECT_NE(first.err.find("1/3 a.png"), std::string::npos) << first.err;  // plain progress lines
  EXPECT_NE(first.err.find("2/3 b.png"), std::string::npos) << first.err;
  std::istringstream lines(Read(out));
  std::string line;
  std::vector<std::string> files;
  while (std::getline(lines, line)) {
    const auto j = nlohmann::json::parse(line);
    files.push_back(j.at("file"));
    EXPECT_EQ(j.at("sha256").get<std::string>().size(), 64u);
    EXPECT_TRUE(j.at("caption").is_string());
  }
  EXPECT_EQ(files, (std::vector<std::string>{"a.png", "b.png"}));

  // Resume: a new image is the only one captioned; the output keeps the first run's lines.
  const std::string before = Read(out);
  fs::copy_file(d / "a.png", d / "c.png");
  std::ofstream(d / "c.png", std::ios::app | std::ios::binary) << "trailing c";
  fs::remove(d / "broken.jpg");
  CliProcess second({"caption", d.path(), "--out", out, "--max-tokens", "3"});
  EXPECT_EQ(second.Wait(300), 0) << second.err;
  EXPECT_NE(second.err.find("1 captioned, 2 already in"), std::string::npos) << second.err;
  const std::string after = Read(out);
  EXPECT_EQ(after.substr(0, before.size()), before);
  EXPECT_NE(after.find("\"file\":\"c.png\""), std::string::npos) << after;
}

TEST(CliCaptionFolder, CsvAndBadOutputPaths) {
  TempDir d;
  MakeFolder(d);
  fs::remove(d / "broken.jpg");
  CliProcess csv({"caption", d.path(), "--out", d / "c.csv", "--max-tokens", "2"});
  EXPECT_EQ(csv.Wait(300), 0) << csv.err;
  EXPECT_EQ(Read(d / "c.csv").rfind("file,sha256,caption\n", 0), 0u);

  CliProcess no_out({"caption", d.path()});
  EXPECT_EQ(no_out.Wait(60), 1);
  EXPECT_NE(no_out.err.find("give --out"), std::string::npos) << no_out.err;
  CliProcess bad_ext({"caption", d.path(), "--out", d / "c.txt"});
  EXPECT_EQ(bad_ext.Wait(60), 1);
  EXPECT_NE(bad_ext.err.find(".jsonl or .csv"), std::string::npos) << bad_ext.err;
  CliProcess unwritable({"caption", d.path(), "--out", d / "missing-dir/c.jsonl", "--max-tokens", "2"});
  EXPECT_EQ(unwritable.Wait(120), 1);
  EXPECT_NE(unwritable.err.find("cannot write"), std::string::npos) << unwritable.err;
}

}  // namespace
}  // namespace glance::test
