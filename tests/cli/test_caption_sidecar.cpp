// Caption sidecars (issue 33; core/engine/caption_sidecar.h through caption_folder.h's
// CaptionFolder) with a fake captioner: each --existing mode, the prefix, the extension, subfolders,
// a sidecar edited by hand left alone and reported (and replaced only when asked), the record that
// tells the two apart (negative control: without it every sidecar reads as not Glance's), no
// temporary left behind, per-image failures, resume with an output file, identical images.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "core/engine/caption_folder.h"
#include "core/engine/caption_sidecar.h"
#include "core/engine/sidecar_manifest.h"
#include "core/util/atomic_write.h"
#include "core/util/error.h"
#include "core/util/file_lock.h"
#include "tests/model/temp_dir.h"

namespace glance {
namespace {

namespace fs = std::filesystem;

void Write(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }
std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "Captions" an image by its bytes; counts the calls.
struct Fake {
  std::vector<std::string> calls;
  std::string next = "caption";  // the caption is NEXT of BYTES
  Captioner captioner() {
    return [this](const std::string& path) {
      calls.push_back(fs::path(path).filename().string());
      const std::string bytes = Read(path);
      if (bytes.rfind("bad", 0) == 0) throw Error(path + ": not an image");
      return next + " of " + bytes;
    };
  }
};

CaptionFolderSummary Caption(const std::string& dir, Fake& fake, SidecarExisting mode, const std::string& prefix = "",
                         bool replace_edited = false, const std::string& ext = ".txt", bool recursive = false,
                         const std::string& out = "") {
  CaptionFolderOptions o;
  o.sidecar = SidecarOptions{ext, mode, prefix, replace_edited};
  o.recursive = recursive;
  o.out_path = out;
  return CaptionFolder(dir, o, fake.captioner());
}

// Every file name in `dir` (not recursing), so a leftover temporary shows.
std::set<std::string> Names(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

TEST(CaptionSidecarText, ModesSeparatorsAndPrefix) {
  using M = SidecarExisting;
  EXPECT_EQ(ComposeSidecarText(M::kOverwrite, "old", " a dog\n", ""), "a dog");
  EXPECT_EQ(ComposeSidecarText(M::kSkip, "", "a dog", ""), "a dog");
  // Tags are joined by ", "; after punctuation (a sentence, or a trailing comma) by a space.
  EXPECT_EQ(ComposeSidecarText(M::kAppend, "tag1, tag2\n", "a dog", ""), "tag1, tag2, a dog");
  EXPECT_EQ(ComposeSidecarText(M::kAppend, "A cat sleeps.", "A dog barks.", ""), "A cat sleeps. A dog barks.");
  EXPECT_EQ(ComposeSidecarText(M::kAppend, "tag1,", "a dog", ""), "tag1, a dog");
  EXPECT_EQ(ComposeSidecarText(M::kAppend, "", "a dog", ""), "a dog");
  EXPECT_EQ(ComposeSidecarText(M::kPrepend, "tag1, tag2", "a dog", ""), "a dog, tag1, tag2");
  EXPECT_EQ(ComposeSidecarText(M::kPrepend, "tag1", "A dog.", ""), "A dog. tag1");
  // A byte-order mark of the old text is not carried into the middle of the new one.
  EXPECT_EQ(ComposeSidecarText(M::kPrepend, "\xEF\xBB\xBFtag1", "a dog", ""), "a dog, tag1");
  // The prefix starts the sidecar, once.
  EXPECT_EQ(ComposeSidecarText(M::kOverwrite, "", "a dog", "sks"), "sks, a dog");
  EXPECT_EQ(ComposeSidecarText(M::kOverwrite, "", "a dog", "sks, "), "sks, a dog");
  EXPECT_EQ(ComposeSidecarText(M::kOverwrite, "", "a dog", "photo of sks:"), "photo of sks: a dog");
  EXPECT_EQ(ComposeSidecarText(M::kOverwrite, "", "sks, a dog", "sks"), "sks, a dog");
  EXPECT_EQ(ComposeSidecarText(M::kOverwrite, "", "sksx dog", "sks"), "sks, sksx dog");  // a word, not a start
  EXPECT_EQ(ComposeSidecarText(M::kAppend, "sks, a cat", "a dog", "sks"), "sks, a cat, a dog");
  EXPECT_EQ(ComposeSidecarText(M::kAppend, "a cat", "a dog", "sks"), "sks, a cat, a dog");
  EXPECT_EQ(ComposeSidecarText(M::kPrepend, "sks, a cat", "a dog", "sks"), "sks, a dog, a cat");
}

TEST(CaptionSidecarText, FlagValuesAndPaths) {
  EXPECT_EQ(ParseSidecarExisting("append"), SidecarExisting::kAppend);
  EXPECT_EQ(ParseSidecarExisting("skip"), SidecarExisting::kSkip);
  EXPECT_THROW(ParseSidecarExisting("maybe"), Error);
  EXPECT_THROW(ParseSidecarExisting("Skip"), Error);
  EXPECT_NO_THROW(CheckSidecarExtension(".txt"));
  EXPECT_NO_THROW(CheckSidecarExtension(".caption"));
  for (const char* bad : {"txt", ".", "", ".a/b", "./x", ".a\\b", ".png", ".JPG", ".jsonl", ".a.b"})
    EXPECT_THROW(CheckSidecarExtension(bad), Error) << bad;
  try {
    CheckSidecarExtension(".png");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("overwrite images"), std::string::npos) << e.what();
  }
  EXPECT_EQ(SidecarPath("trip/photo.jpg", ".txt"), "trip/photo.txt");
  EXPECT_EQ(SidecarPath("a.b.png", ".caption"), "a.b.caption");
}

TEST(CaptionSidecar, SkipWritesMissingOnesLeavesOthersAndResumes) {
  test::TempDir d;
  Write(d / "a.png", "A");
  Write(d / "b.jpg", "B");
  Write(d / "b.txt", "my own caption");  // made by hand: skip mode leaves it
  Fake fake;
  CaptionFolderSummary s = Caption(d.path(), fake, SidecarExisting::kSkip);
  EXPECT_EQ(s.images, 2);
  EXPECT_EQ(s.sidecars_written, 1);
  EXPECT_EQ(s.had_sidecar, 1);
  EXPECT_TRUE(s.protected_sidecars.empty());
  EXPECT_EQ(fake.calls, std::vector<std::string>{"a.png"});  // no model time for b.jpg
  EXPECT_EQ(Read(d / "a.txt"), "caption of A");
  EXPECT_EQ(Read(d / "b.txt"), "my own caption");
  // A rerun (say, after a kill) has nothing left to do.
  fake.calls.clear();
  s = Caption(d.path(), fake, SidecarExisting::kSkip);
  EXPECT_EQ(s.had_sidecar, 2);
  EXPECT_EQ(s.captioned, 0);
  EXPECT_TRUE(fake.calls.empty());
  // Only the images, their sidecars and the record: no temporary left behind.
  EXPECT_EQ(Names(d.path()), (std::set<std::string>{"a.png", "a.txt", "b.jpg", "b.txt", kSidecarManifestName}));
}

TEST(CaptionSidecar, OverwriteReplacesGlancesOwnAndProtectsOnesEditedByHand) {
  test::TempDir d;
  for (const char* n : {"a.png", "b.png", "c.png"}) Write(d / n, std::string(n).substr(0, 1));
  Write(d / "c.txt", "written by another tool");
  Fake fake;
  Caption(d.path(), fake, SidecarExisting::kSkip);
  ASSERT_EQ(Read(d / "a.txt"), "caption of a");
  Write(d / "b.txt", "caption of b, fixed by hand");  // the user edits one

  fake.next = "new";
  CaptionFolderSummary s = Caption(d.path(), fake, SidecarExisting::kOverwrite);
  EXPECT_EQ(Read(d / "a.txt"), "new of a");
  EXPECT_EQ(Read(d / "b.txt"), "caption of b, fixed by hand");
  EXPECT_EQ(Read(d / "c.txt"), "written by another tool");
  EXPECT_EQ(s.sidecars_written, 1);
  EXPECT_EQ(s.protected_sidecars, (std::vector<std::string>{d / "b.txt", d / "c.txt"}));
  // Protected images cost no model time: a and b in skip mode (c had one), then a only.
  EXPECT_EQ(fake.calls, (std::vector<std::string>{"a.png", "b.png", "a.png"}));

  // Glance's latest text is still Glance's: a second overwrite replaces it again.
  fake.next = "newer";
  s = Caption(d.path(), fake, SidecarExisting::kOverwrite);
  EXPECT_EQ(Read(d / "a.txt"), "newer of a");
  EXPECT_EQ(s.protected_sidecars.size(), 2u);

  // The user says so: the edited ones are replaced too, and are Glance's from then on.
  s = Caption(d.path(), fake, SidecarExisting::kOverwrite, "", /*replace_edited=*/true);
  EXPECT_EQ(Read(d / "b.txt"), "newer of b");
  EXPECT_EQ(Read(d / "c.txt"), "newer of c");
  EXPECT_TRUE(s.protected_sidecars.empty());
  EXPECT_EQ(s.sidecars_written, 3);
  s = Caption(d.path(), fake, SidecarExisting::kOverwrite);
  EXPECT_TRUE(s.protected_sidecars.empty());
}

// Negative control: the record is what makes a sidecar Glance's. Without it, the sidecars Glance
// wrote read as not its own and are protected; the check above cannot pass by protecting nothing.
TEST(CaptionSidecar, WithoutTheRecordEverySidecarIsProtected) {
  test::TempDir d;
  Write(d / "a.png", "a");
  Fake fake;
  Caption(d.path(), fake, SidecarExisting::kSkip);
  fs::remove(d / kSidecarManifestName);
  fake.next = "new";
  const CaptionFolderSummary s = Caption(d.path(), fake, SidecarExisting::kOverwrite);
  EXPECT_EQ(s.protected_sidecars, std::vector<std::string>{d / "a.txt"});
  EXPECT_EQ(Read(d / "a.txt"), "caption of a");
}

// Edited while its image was being captioned: looked at again before writing, and left alone.
TEST(CaptionSidecar, AnEditDuringCaptioningIsNotOverwritten) {
  test::TempDir d;
  Write(d / "a.png", "a");
  Fake fake;
  Caption(d.path(), fake, SidecarExisting::kSkip);
  CaptionFolderOptions o;
  o.sidecar = SidecarOptions{".txt", SidecarExisting::kOverwrite, "", false};
  const CaptionFolderSummary s = CaptionFolder(d.path(), o, [&](const std::string&) {
    Write(d / "a.txt", "typed in meanwhile");
    return std::string("late");
  });
  EXPECT_EQ(Read(d / "a.txt"), "typed in meanwhile");
  EXPECT_EQ(s.protected_sidecars, std::vector<std::string>{d / "a.txt"});
  EXPECT_EQ(s.sidecars_written, 0);
}

TEST(CaptionSidecar, AppendAndPrependWithAPrefix) {
  test::TempDir d;
  Write(d / "a.png", "a");
  Fake fake;
  Caption(d.path(), fake, SidecarExisting::kSkip, "sks");
  EXPECT_EQ(Read(d / "a.txt"), "sks, caption of a");
  fake.next = "tail";
  Caption(d.path(), fake, SidecarExisting::kAppend, "sks");
  EXPECT_EQ(Read(d / "a.txt"), "sks, caption of a, tail of a");
  fake.next = "head";
  Caption(d.path(), fake, SidecarExisting::kPrepend, "sks");
  EXPECT_EQ(Read(d / "a.txt"), "sks, head of a, caption of a, tail of a");
  // Without a prefix, and a hand-made sidecar protected in append mode too.
  Write(d / "b.png", "b");
  Write(d / "b.txt", "mine");
  fake.next = "more";
  const CaptionFolderSummary s = Caption(d.path(), fake, SidecarExisting::kAppend);
  EXPECT_EQ(Read(d / "a.txt"), "sks, head of a, caption of a, tail of a, more of a");
  EXPECT_EQ(Read(d / "b.txt"), "mine");
  EXPECT_EQ(s.protected_sidecars, std::vector<std::string>{d / "b.txt"});
  Caption(d.path(), fake, SidecarExisting::kPrepend, "", /*replace_edited=*/true);
  EXPECT_EQ(Read(d / "b.txt"), "more of b, mine");
}

TEST(CaptionSidecar, ExtensionAndSubfoldersWithoutHiddenOnesOrLinkLoops) {
  test::TempDir d;
  fs::create_directories(d / "trip/day1");
  fs::create_directories(d / ".cache");
  Write(d / "top.png", "t");
  Write(d / "trip/day1/deep.jpg", "d");
  Write(d / "trip/mid.webp", "m");
  Write(d / ".cache/thumb.png", "x");                  // hidden folder: not entered
  fs::create_directory_symlink(d.path(), d / "trip/loop");  // a link back up: not followed
  EXPECT_EQ(ListImageFilesRecursive(d.path()),
            (std::vector<std::string>{"top.png", "trip/day1/deep.jpg", "trip/mid.webp"}));
  EXPECT_EQ(ListImageFiles(d.path()), std::vector<std::string>{"top.png"});
  Fake fake;
  const CaptionFolderSummary s = Caption(d.path(), fake, SidecarExisting::kSkip, "", false, ".caption", true);
  EXPECT_EQ(s.sidecars_written, 3);
  EXPECT_EQ(Read(d / "top.caption"), "caption of t");
  EXPECT_EQ(Read(d / "trip/day1/deep.caption"), "caption of d");
  EXPECT_EQ(Read(d / "trip/mid.caption"), "caption of m");
  EXPECT_FALSE(fs::exists(d / ".cache/thumb.caption"));
  EXPECT_FALSE(fs::exists(d / "top.txt"));
  // Each folder keeps its own record (it travels with the folder).
  EXPECT_TRUE(fs::exists(fs::path(d / "trip/day1") / kSidecarManifestName));
  EXPECT_TRUE(fs::exists(fs::path(d / "trip") / kSidecarManifestName));
  // Not recursive: only the top folder.
  test::TempDir e;
  fs::create_directories(e / "sub");
  Write(e / "sub/x.png", "x");
  Write(e / "y.png", "y");
  Caption(e.path(), fake, SidecarExisting::kSkip);
  EXPECT_TRUE(fs::exists(e / "y.txt"));
  EXPECT_FALSE(fs::exists(e / "sub/x.txt"));
}

TEST(CaptionSidecar, PerImageFailuresAreNotFatal) {
  test::TempDir d;
  fs::create_directories(d / "a.txt");   // a.png's sidecar path is a folder
  Write(d / "a.png", "a");
  Write(d / "bad.png", "bad bytes");     // the captioner fails
  Write(d / "photo.jpg", "p1");
  Write(d / "photo.png", "p2");          // same sidecar as photo.jpg
  Write(d / "z.png", "z");
  std::map<std::string, std::string> failed;
  CaptionFolderCallbacks cb;
  cb.on_failed = [&](const std::string& f, const std::string& error) { failed[f] = error; };
  CaptionFolderOptions o;
  o.sidecar = SidecarOptions{};
  Fake fake;
  const CaptionFolderSummary s = CaptionFolder(d.path(), o, fake.captioner(), cb);
  EXPECT_EQ(s.failed, 3);
  EXPECT_EQ(s.sidecars_written, 2);
  EXPECT_NE(failed["a.png"].find(d / "a.txt"), std::string::npos) << failed["a.png"];
  EXPECT_NE(failed["a.png"].find("is a folder"), std::string::npos) << failed["a.png"];
  EXPECT_NE(failed["photo.png"].find("photo.jpg"), std::string::npos) << failed["photo.png"];
  EXPECT_EQ(failed.count("bad.png"), 1u);
  EXPECT_EQ(Read(d / "photo.txt"), "caption of p1");
  EXPECT_EQ(Read(d / "z.txt"), "caption of z");
  EXPECT_FALSE(fs::exists(d / "bad.txt"));
}

// A folder Glance cannot write into fails its own images, not the run. Root writes into read-only
// folders, so there the folder's record is made unwritable instead (a folder by its name).
TEST(CaptionSidecar, AnUnwritableFolderFailsItsImagesOnly) {
  test::TempDir d;
  fs::create_directories(d / "locked");
  Write(d / "locked/a.png", "a");
  Write(d / "b.png", "b");
  const bool root = ::geteuid() == 0;
  if (root) fs::create_directories(fs::path(d / "locked") / kSidecarManifestName);
  else fs::permissions(d / "locked", fs::perms::owner_read | fs::perms::owner_exec);
  std::map<std::string, std::string> failed;
  CaptionFolderCallbacks cb;
  cb.on_failed = [&](const std::string& f, const std::string& error) { failed[f] = error; };
  CaptionFolderOptions o;
  o.sidecar = SidecarOptions{};
  o.recursive = true;
  Fake fake;
  const CaptionFolderSummary s = CaptionFolder(d.path(), o, fake.captioner(), cb);
  if (!root) fs::permissions(d / "locked", fs::perms::owner_all);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.sidecars_written, 1);
  EXPECT_EQ(Read(d / "b.txt"), "caption of b");
  EXPECT_FALSE(fs::exists(d / "locked/a.txt"));
  EXPECT_NE(failed["locked/a.png"].find(d / "locked/a.txt"), std::string::npos) << failed["locked/a.png"];
  EXPECT_EQ(failed["locked/a.png"].find('\n'), std::string::npos) << failed["locked/a.png"];
}

TEST(CaptionSidecar, LeftoversOfAKilledWriteAreRemovedAndNamed) {
  test::TempDir d;
  Write(d / "a.png", "a");
  Write(d / ".a.txt.glance-tmp-Ab12Cd", "caption of");  // a write killed before its rename
  Write(d / ".notes.glance-tmp-x", "not ours");          // not the pattern: kept
  EXPECT_TRUE(IsAtomicWriteLeftover(".a.txt.glance-tmp-Ab12Cd"));
  EXPECT_FALSE(IsAtomicWriteLeftover("a.txt"));
  Fake fake;
  const CaptionFolderSummary s = Caption(d.path(), fake, SidecarExisting::kSkip);
  ASSERT_EQ(s.notices.size(), 1u);
  EXPECT_NE(s.notices[0].find("removed 1 unfinished"), std::string::npos) << s.notices[0];
  EXPECT_EQ(Names(d.path()), (std::set<std::string>{"a.png", "a.txt", ".notes.glance-tmp-x", kSidecarManifestName}));
}

TEST(CaptionSidecar, WriteFileAtomicallyReplacesWholeAndKeepsTheMode) {
  test::TempDir d;
  const std::string p = d / "x.txt";
  WriteFileAtomically(p, "one");
  EXPECT_EQ(Read(p), "one");
  fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  WriteFileAtomically(p, "two");
  EXPECT_EQ(Read(p), "two");
  EXPECT_EQ(fs::status(p).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_THROW(WriteFileAtomically(d / "missing/x.txt", "x"), Error);
  EXPECT_EQ(Names(d.path()), std::set<std::string>{"x.txt"});
}

// With an output file, its rows are the resume state in every mode: an append run stopped part way
// and run again appends once to each image, not twice to the ones it had done.
TEST(CaptionSidecar, WithAnOutputFileAnInterruptedAppendResumesWithoutAppendingTwice) {
  test::TempDir d;
  for (const char* n : {"a.png", "b.png", "c.png"}) {
    Write(d / n, std::string(n).substr(0, 1));
    Write(d / (std::string(n).substr(0, 1) + ".txt"), "old");
  }
  Fake fake;
  CaptionFolderOptions o;
  o.sidecar = SidecarOptions{".txt", SidecarExisting::kAppend, "", /*replace_edited=*/true};
  o.out_path = d / "run.jsonl";
  std::atomic<bool> cancel{false};
  CaptionFolderCallbacks cb;
  cb.cancel = &cancel;
  cb.on_captioned = [&](const CaptionRecord&, const CaptionFolderProgress&) { cancel = true; };  // stop after one
  CaptionFolderSummary s = CaptionFolder(d.path(), o, fake.captioner(), cb);
  EXPECT_TRUE(s.cancelled);
  EXPECT_EQ(Read(d / "a.txt"), "old, caption of a");
  EXPECT_EQ(Read(d / "b.txt"), "old");
  s = CaptionFolder(d.path(), o, fake.captioner());
  EXPECT_EQ(s.already_done, 1);
  EXPECT_EQ(s.sidecars_written, 2);
  for (const char* n : {"a", "b", "c"}) EXPECT_EQ(Read(d / (std::string(n) + ".txt")), std::string("old, caption of ") + n);
  EXPECT_EQ(ReadCaptionedFiles(o.out_path, CaptionFormat::kJsonl).size(), 3u);
  // Negative control: without the output file, a rerun appends again.
  o.out_path.clear();
  CaptionFolder(d.path(), o, fake.captioner());
  EXPECT_EQ(Read(d / "a.txt"), "old, caption of a, caption of a");
}

// Stopped after an image's sidecar and before its row: the rerun writes the row from the folder's
// record and neither captions the image nor appends to its sidecar again. Negative control: a run
// into another output file has no such record, so it appends.
TEST(CaptionSidecar, ARowMissingAfterItsSidecarIsCompletedFromTheRecord) {
  test::TempDir d;
  Write(d / "a.png", "a");
  Write(d / "a.txt", "old");
  Fake fake;
  CaptionFolderOptions o;
  o.sidecar = SidecarOptions{".txt", SidecarExisting::kAppend, "", /*replace_edited=*/true};
  o.out_path = d / "run.jsonl";
  CaptionFolder(d.path(), o, fake.captioner());
  ASSERT_EQ(Read(d / "a.txt"), "old, caption of a");
  const std::string row = Read(o.out_path);
  Write(o.out_path, "");  // the row never made it to disk
  fake.calls.clear();
  const CaptionFolderSummary s = CaptionFolder(d.path(), o, fake.captioner());
  EXPECT_TRUE(fake.calls.empty());
  EXPECT_EQ(s.captioned, 1);
  EXPECT_EQ(s.sidecars_written, 0);
  EXPECT_EQ(Read(d / "a.txt"), "old, caption of a");
  EXPECT_EQ(Read(o.out_path), row);
  o.out_path = d / "other.jsonl";
  CaptionFolder(d.path(), o, fake.captioner());
  EXPECT_EQ(Read(d / "a.txt"), "old, caption of a, caption of a");
}

TEST(CaptionSidecar, IdenticalImagesEachGetASidecarCaptionedOnce) {
  test::TempDir d;
  Write(d / "a.png", "same");
  Write(d / "b.png", "same");
  Fake fake;
  const CaptionFolderSummary s = Caption(d.path(), fake, SidecarExisting::kSkip);
  EXPECT_EQ(fake.calls, std::vector<std::string>{"a.png"});
  EXPECT_EQ(s.sidecars_written, 2);
  EXPECT_EQ(Read(d / "b.txt"), "caption of same");
}

// Sidecars are UTF-8: a caption with bytes that are not (a model cut mid-character) is written
// with U+FFFD in their place; valid text is written byte for byte.
TEST(CaptionSidecar, TextIsWrittenAsValidUtf8) {
  test::TempDir d;
  Write(d / "a.png", "a");
  Write(d / "b.png", "b");
  CaptionFolderOptions o;
  o.sidecar = SidecarOptions{};
  CaptionFolder(d.path(), o, [](const std::string& path) {
    return path.back() == 'g' && path[path.size() - 5] == 'a' ? std::string("caf\xC3\xA9 \xE2\x98\x95")
                                                               : std::string("cut \xE2\x98");
  });
  EXPECT_EQ(Read(d / "a.txt"), "caf\xC3\xA9 \xE2\x98\x95");
  EXPECT_EQ(Read(d / "b.txt"), "cut \xEF\xBF\xBD");
}

// The folder view's API (issue 33 item 1): the state of each sidecar, and a caption saved by the
// user is recorded as edited by hand, so an overwrite run leaves it (control: replace_edited).
TEST(CaptionSidecar, StatesAndAnEditSavedByTheUserIsProtected) {
  test::TempDir d;
  Write(d / "a.png", "A");
  Write(d / "b.png", "B");
  Write(d / "c.png", "C");
  Fake fake;
  {
    CaptionFolderOptions o;
    o.sidecar = SidecarOptions{};
    o.only = std::set<std::string>{"a.png", "b.png"};  // "caption the selected"
    EXPECT_EQ(CaptionFolder(d.path(), o, fake.captioner()).sidecars_written, 2);
    EXPECT_EQ(fake.calls, (std::vector<std::string>{"a.png", "b.png"}));
  }
  SidecarWriter view(d.path(), SidecarOptions{});
  std::string text;
  EXPECT_EQ(view.State("a.png", &text), SidecarState::kGlance);
  EXPECT_EQ(text, "caption of A");
  EXPECT_EQ(view.State("c.png", &text), SidecarState::kNone);
  EXPECT_EQ(text, "");
  view.WriteEdited("a.png", "my fix");
  EXPECT_EQ(Read(d / "a.txt"), "my fix");
  EXPECT_EQ(view.State("a.png"), SidecarState::kEdited);
  EXPECT_EQ(SidecarWriter(d.path(), SidecarOptions{}).State("a.png"), SidecarState::kEdited);  // from the record
  EXPECT_NE(Read(d / kSidecarManifestName).find("\"edited\":true"), std::string::npos);
  // Edited back to Glance's text, it is Glance's again.
  view.WriteEdited("b.png", "caption of B");
  EXPECT_EQ(SidecarWriter(d.path(), SidecarOptions{}).State("b.png"), SidecarState::kGlance);
  EXPECT_FALSE(Names(d.path()).count("a.txt.tmp"));
  fake.next = "new";
  CaptionFolderSummary s = Caption(d.path(), fake, SidecarExisting::kOverwrite);
  EXPECT_EQ(Read(d / "a.txt"), "my fix");
  EXPECT_EQ(Read(d / "b.txt"), "new of B");
  EXPECT_EQ(s.protected_sidecars, std::vector<std::string>{(fs::path(d.path()) / "a.txt").string()});
  Caption(d.path(), fake, SidecarExisting::kOverwrite, "", /*replace_edited=*/true);
  EXPECT_EQ(Read(d / "a.txt"), "new of A");
}

// The folder view reads a folder's record while a caption run appends to it on the engine thread.
// A record caught half written is not a torn tail: the reader waits for the appender (which holds
// the record's lock while it writes, as SidecarManifest::Record does) and reads it whole. Without
// the lock the reader cut the half line off and set it aside, and the rest landed after the cut.
TEST(SidecarManifest, AReaderWaitsForARecordBeingAppended) {
  test::TempDir d;
  const std::string path = d / kSidecarManifestName;
  SidecarManifest(d.path()).Record("a.txt", "a.png", std::string(64, '1'), std::string(64, '2'));
  const std::string line = R"({"sidecar":"b.txt","image":"b.png","image_sha256":")" + std::string(64, '3') +
                           R"(","text_sha256":")" + std::string(64, '4') + "\"}\n";
  std::atomic<bool> half{false};
  std::thread appender([&] {
    const FileLock turn(path);
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << line.substr(0, 40) << std::flush;
    half.store(true);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    out << line.substr(40) << std::flush;
  });
  while (!half.load()) std::this_thread::yield();
  const SidecarManifest reader(d.path());
  appender.join();
  EXPECT_EQ(reader.notice(), "");
  EXPECT_TRUE(reader.Wrote("b.txt", std::string(64, '4')));
  EXPECT_TRUE(reader.Wrote("a.txt", std::string(64, '2')));
  EXPECT_FALSE(fs::exists(path + ".torn"));
  EXPECT_FALSE(FileLock(d / "not-there").locked());
}

TEST(CaptionSidecar, NeedsAnOutputFileOrSidecars) {
  test::TempDir d;
  Fake fake;
  EXPECT_THROW(CaptionFolder(d.path(), CaptionFolderOptions{}, fake.captioner()), Error);
}

}  // namespace
}  // namespace glance
