// `glance-cli caption DIR --sidecar ...` on the demo model (issue 33): sidecars next to each image
// with a prefix and subfolders (hidden ones skipped), a rerun that resumes, a hand-edited sidecar
// protected and reported in overwrite mode and replaced with --replace-edited, append, another
// extension together with --out; bad flag values refused in one line naming the flag, before the
// model loads.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

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

// The demo image at the top, a copy with other trailing bytes in a subfolder (decoders stop at the
// image's end: same picture, another sha256), another in a hidden folder.
void MakeFolder(const TempDir& d) {
  const std::string demo = std::string(GLANCE_SOURCE_RESOURCES) + "/demo-image.png";
  fs::create_directories(d / "trip");
  fs::create_directories(d / ".thumbs");
  fs::copy_file(demo, d / "a.png");
  fs::copy_file(demo, d / "trip/b.png");
  std::ofstream(d / "trip/b.png", std::ios::app | std::ios::binary) << "trailing b";
  fs::copy_file(demo, d / ".thumbs/c.png");
}

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST(CliCaptionSidecar, ModesPrefixSubfoldersAndAHandEditProtected) {
  TempDir d;
  MakeFolder(d);
  const std::vector<std::string> base = {"caption", d.path(), "--sidecar", "--recursive", "--max-tokens", "3"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };

  CliProcess first(with({"--prefix", "sks"}));
  ASSERT_EQ(first.Wait(300), 0) << first.err;
  EXPECT_NE(first.err.find("2 images: 2 captioned, 2 sidecars written, 0 already had one, 0 failed"),
            std::string::npos)
      << first.err;
  const std::string a = Read(d / "a.txt");
  EXPECT_EQ(a.rfind("sks, ", 0), 0u) << a;
  EXPECT_GT(a.size(), 5u);
  EXPECT_EQ(Read(d / "trip/b.txt").rfind("sks, ", 0), 0u);
  EXPECT_FALSE(fs::exists(d / ".thumbs/c.txt"));

  CliProcess again(with({}));  // skip: resumes, nothing left
  ASSERT_EQ(again.Wait(300), 0) << again.err;
  EXPECT_NE(again.err.find("0 captioned, 0 sidecars written, 2 already had one"), std::string::npos) << again.err;

  std::ofstream(d / "a.txt", std::ios::trunc) << "fixed by hand";
  CliProcess overwrite(with({"--existing", "overwrite"}));
  ASSERT_EQ(overwrite.Wait(300), 0) << overwrite.err;
  EXPECT_EQ(Read(d / "a.txt"), "fixed by hand");
  EXPECT_NE(overwrite.err.find("1 sidecar written, 1 protected"), std::string::npos) << overwrite.err;
  EXPECT_NE(overwrite.err.find("protected: " + d / "a.txt"), std::string::npos) << overwrite.err;
  const std::string b = Read(d / "trip/b.txt");
  EXPECT_NE(b.rfind("sks, ", 0), 0u) << "overwritten without the prefix: " << b;

  CliProcess replace(with({"--existing", "overwrite", "--replace-edited"}));
  ASSERT_EQ(replace.Wait(300), 0) << replace.err;
  EXPECT_NE(Read(d / "a.txt"), "fixed by hand");
  EXPECT_EQ(replace.err.find("protected:"), std::string::npos) << replace.err;

  CliProcess append(with({"--existing", "append"}));
  ASSERT_EQ(append.Wait(300), 0) << append.err;
  const std::string appended = Read(d / "trip/b.txt");
  EXPECT_EQ(appended.rfind(b, 0), 0u) << appended;
  EXPECT_GT(appended.size(), b.size() + 2) << appended;

  // Another extension, with the JSONL output beside it.
  CliProcess caption_ext(with({"--sidecar-ext", ".caption", "--out", d / "run.jsonl"}));
  ASSERT_EQ(caption_ext.Wait(300), 0) << caption_ext.err;
  EXPECT_TRUE(fs::exists(d / "a.caption"));
  EXPECT_TRUE(fs::exists(d / "trip/b.caption"));
  EXPECT_EQ(Lines(Read(d / "run.jsonl")), 2);
  EXPECT_NE(Read(d / "run.jsonl").find("\"file\":\"trip/b.png\""), std::string::npos);
}

TEST(CliCaptionSidecar, BadFlagsAreOneLineNamingTheFlag) {
  TempDir d;
  MakeFolder(d);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--sidecar", "--existing", "maybe"}, "--existing maybe: 'maybe' is not a mode"},
      {{"--sidecar", "--sidecar-ext", "txt"}, "--sidecar-ext txt:"},
      {{"--sidecar", "--sidecar-ext", ".a/b"}, "--sidecar-ext .a/b:"},
      {{"--sidecar", "--sidecar-ext", ".png"}, "would overwrite images"},
      {{"--existing", "overwrite"}, "--existing is for --sidecar"},
      {{"--sidecar", "--replace-edited"}, "--replace-edited changes sidecars"},
      {{}, "and/or --sidecar"},
  };
  for (const auto& [flags, expected] : cases) {
    std::vector<std::string> args = {"caption", d.path()};
    args.insert(args.end(), flags.begin(), flags.end());
    CliProcess p(args);
    EXPECT_EQ(p.Wait(60), 1) << expected;
    EXPECT_NE(p.err.find(expected), std::string::npos) << p.err;
    EXPECT_EQ(Lines(p.err), 1) << p.err;
    EXPECT_EQ(p.err.find("demo model"), std::string::npos) << "refused only after loading the model: " << p.err;
  }
  CliProcess one_image({"caption", d / "a.png", "--sidecar"});
  EXPECT_EQ(one_image.Wait(60), 1);
  EXPECT_NE(one_image.err.find("--sidecar is for a folder"), std::string::npos) << one_image.err;
  // A sidecar path that is a folder fails that image only, in one line naming it.
  fs::create_directories(d / "trip/b.txt");
  CliProcess folder_in_the_way({"caption", d.path(), "--sidecar", "--recursive", "--max-tokens", "2"});
  EXPECT_EQ(folder_in_the_way.Wait(300), 1);
  EXPECT_NE(folder_in_the_way.err.find("skipped trip/b.png: " + d / "trip/b.txt" + ": is a folder"), std::string::npos)
      << folder_in_the_way.err;
  EXPECT_TRUE(fs::exists(d / "a.txt"));
}

}  // namespace
}  // namespace glance::test
