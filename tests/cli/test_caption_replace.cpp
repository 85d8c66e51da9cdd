// Find and replace across caption sidecars (issue 33 item 4; core/engine/caption_replace.h and
// glance-cli replace): plain, ignore-case and regular-expression replaces with groups; the preview
// changes nothing; apply writes every planned file and the undo journal first; undo restores
// exactly, leaves a file edited since alone, and also undoes a replace stopped half way; bad
// expressions and replacements are one line naming the flag.
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>

#include "core/engine/caption_replace.h"
#include "core/util/error.h"
#include "tests/cli/cli_process.h"

namespace glance {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
void Write(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

class CaptionReplace : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("glance-replace-" + std::to_string(::getpid()) + "-" +
                                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "trip");
    for (const char* image : {"a.png", "b.jpg", "c.png", "trip/d.png"}) Write(dir_ / image, "not read");
    Write(dir_ / "a.txt", "a dog on a sofa, dog, DOG");
    Write(dir_ / "b.txt", "a cat in the sun");
    Write(dir_ / "trip/d.txt", "a dog on a beach");
    Write(dir_ / "notes.txt", "a dog without an image");  // not a sidecar: never touched
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CaptionReplace, TextReplacesPlainIgnoringCaseAndByExpression) {
  int n = 0;
  EXPECT_EQ(ReplaceInText("a dog, dog, DOG", {"dog", "cat"}, &n), "a cat, cat, DOG");
  EXPECT_EQ(n, 2);
  EXPECT_EQ(ReplaceInText("a dog, dog, DOG", {"dog", "cat", false, true}, &n), "a cat, cat, cat");
  EXPECT_EQ(n, 3);
  EXPECT_EQ(ReplaceInText("ÉCOLE, école", {"école", "school", false, true}, &n), "school, school");
  // Plain text is plain in both directions: "$1" and "." are not special.
  EXPECT_EQ(ReplaceInText("cost 5.00", {".", "$1", false, true}, &n), "cost 5$100");
  EXPECT_EQ(ReplaceInText("a red car, a blue car", {"(\\w+) car", "car ($1)", true}, &n), "a car (red), a car (blue)");
  EXPECT_EQ(n, 2);
  EXPECT_EQ(ReplaceInText("café au lait", {"\\w+", "x", true}, &n), "x x x");  // Unicode word characters
  EXPECT_EQ(ReplaceInText("nothing here", {"dog", "cat"}, &n), "nothing here");
  EXPECT_EQ(n, 0);
  auto error = [](const ReplaceQuery& q) {
    try {
      ReplaceInText("text", q);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error({"(dog", "x", true}).find("--find '(dog' is not a regular expression"), std::string::npos);
  EXPECT_NE(error({"", "x"}).find("--find is empty"), std::string::npos);
  EXPECT_NE(error({"t", "$9", true}).find("--with"), std::string::npos) << error({"t", "$9", true});
}

TEST_F(CaptionReplace, PreviewApplyAndUndoAcrossAFolder) {
  const std::vector<std::string> flat = FindSidecars(dir_.string(), ".txt", false);
  EXPECT_EQ(flat.size(), 2u);  // a.txt, b.txt (c.png has none; notes.txt has no image)
  const std::vector<std::string> all = FindSidecars(dir_.string(), ".txt", true);
  ASSERT_EQ(all.size(), 3u);
  const auto edits = PlanReplace(all, {"dog", "puppy"});
  ASSERT_EQ(edits.size(), 2u);  // a.txt and trip/d.txt
  EXPECT_EQ(edits[0].matches, 2);
  EXPECT_EQ(Read(dir_ / "a.txt"), "a dog on a sofa, dog, DOG");  // planning changes nothing
  const ReplaceOutcome applied = ApplyReplace(dir_.string(), edits);
  EXPECT_EQ(applied.changed, 2);
  EXPECT_TRUE(applied.skipped.empty());
  EXPECT_EQ(Read(dir_ / "a.txt"), "a puppy on a sofa, puppy, DOG");
  EXPECT_EQ(Read(dir_ / "trip/d.txt"), "a puppy on a beach");
  EXPECT_EQ(Read(dir_ / "notes.txt"), "a dog without an image");
  EXPECT_TRUE(fs::exists(UndoJournalPath(dir_.string())));
  // One undo for the whole replace; a file edited since is left alone and named.
  Write(dir_ / "trip/d.txt", "a puppy on a beach, edited by hand");
  const ReplaceOutcome undone = UndoReplace(dir_.string());
  EXPECT_EQ(undone.changed, 1);
  ASSERT_EQ(undone.skipped.size(), 1u);
  EXPECT_NE(undone.skipped[0].find("d.txt: edited since the replace"), std::string::npos) << undone.skipped[0];
  EXPECT_EQ(Read(dir_ / "a.txt"), "a dog on a sofa, dog, DOG");
  EXPECT_EQ(Read(dir_ / "trip/d.txt"), "a puppy on a beach, edited by hand");
  EXPECT_FALSE(fs::exists(UndoJournalPath(dir_.string())));
  EXPECT_THROW(UndoReplace(dir_.string()), Error);  // once
  // No temporary file is left anywhere.
  for (const auto& e : fs::recursive_directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find("glance-tmp"), std::string::npos) << e.path();
}

TEST_F(CaptionReplace, AFileChangedAfterThePreviewIsNotOverwritten) {
  const auto edits = PlanReplace(FindSidecars(dir_.string(), ".txt", false), {"a ", "the "});
  ASSERT_EQ(edits.size(), 2u);
  Write(dir_ / "b.txt", "a cat in the shade");  // changed between preview and apply
  const ReplaceOutcome applied = ApplyReplace(dir_.string(), edits);
  EXPECT_EQ(applied.changed, 1);
  ASSERT_EQ(applied.skipped.size(), 1u);
  EXPECT_EQ(Read(dir_ / "b.txt"), "a cat in the shade");
}

TEST_F(CaptionReplace, AReplaceStoppedHalfWayIsUndoneExactly) {
  const auto edits = PlanReplace(FindSidecars(dir_.string(), ".txt", true), {"a ", "one "});
  ASSERT_EQ(edits.size(), 3u);
  ApplyReplace(dir_.string(), edits);
  // As if killed after the journal and the first file: the others still hold their old text.
  Write(edits[1].path, edits[1].before);
  Write(edits[2].path, edits[2].before);
  const ReplaceOutcome undone = UndoReplace(dir_.string());
  EXPECT_EQ(undone.changed, 1);
  EXPECT_TRUE(undone.skipped.empty()) << undone.skipped.front();  // never replaced: nothing to say
  for (const CaptionEdit& e : edits) EXPECT_EQ(Read(e.path), e.before) << e.path;
}

TEST_F(CaptionReplace, TheCommandPreviewsAppliesAndUndoes) {
  using test::CliProcess;
  CliProcess preview({"replace", dir_.string(), "--find", "dog", "--with", "puppy", "--recursive"});
  ASSERT_EQ(preview.Wait(), 0) << preview.err;
  EXPECT_NE(preview.out.find("+ a puppy on a sofa, puppy, DOG"), std::string::npos) << preview.out;
  EXPECT_NE(preview.out.find("3 matches in 2 of 3 caption files (a preview"), std::string::npos) << preview.out;
  EXPECT_EQ(Read(dir_ / "a.txt"), "a dog on a sofa, dog, DOG");
  CliProcess apply({"replace", dir_.string(), "--find", "(d)og", "--with", "$1uck", "--regex", "--ignore-case", "--apply"});
  ASSERT_EQ(apply.Wait(), 0) << apply.err;
  EXPECT_EQ(Read(dir_ / "a.txt"), "a duck on a sofa, duck, Duck");
  EXPECT_EQ(Read(dir_ / "trip/d.txt"), "a dog on a beach");  // not --recursive this time
  CliProcess undo({"replace", dir_.string(), "--undo"});
  ASSERT_EQ(undo.Wait(), 0) << undo.err;
  EXPECT_NE(undo.out.find("undone: 1 file restored"), std::string::npos) << undo.out;
  EXPECT_EQ(Read(dir_ / "a.txt"), "a dog on a sofa, dog, DOG");
  // One line naming the flag: a bad expression, a bad extension, nothing to undo.
  CliProcess bad({"replace", dir_.string(), "--find", "[a-", "--with", "x", "--regex"});
  EXPECT_EQ(bad.Wait(), 1);
  EXPECT_NE(bad.err.find("--find '[a-' is not a regular expression"), std::string::npos) << bad.err;
  CliProcess ext({"replace", dir_.string(), "--find", "a", "--with", "b", "--sidecar-ext", "txt"});
  EXPECT_EQ(ext.Wait(), 1);
  EXPECT_NE(ext.err.find("txt"), std::string::npos) << ext.err;
  CliProcess again({"replace", dir_.string(), "--undo"});
  EXPECT_EQ(again.Wait(), 1);
  EXPECT_NE(again.err.find("nothing to undo"), std::string::npos) << again.err;
}

}  // namespace
}  // namespace glance
