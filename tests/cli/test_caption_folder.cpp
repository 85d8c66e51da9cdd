// core/engine/caption_folder.h with a fake captioner: which files are taken, resume keyed by
// sha256 (a renamed image is not captioned twice), duplicates, failures skipped and retried,
// a half-written last line, CSV quoting read back, cancellation.
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/engine/caption_folder.h"
#include "core/util/error.h"
#include "core/util/sha256.h"
#include "tests/model/temp_dir.h"

namespace glance {
namespace {

void Write(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }
std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "Captions" an image file by its content; files whose content starts with "bad" fail.
struct FakeCaptioner {
  std::vector<std::string> calls;
  std::string operator()(const std::string& path) {
    calls.push_back(path.substr(path.rfind('/') + 1));
    const std::string bytes = Read(path);
    if (bytes.rfind("bad", 0) == 0) throw Error(path + ": not an image");
    return "caption of " + bytes;
  }
};

TEST(CaptionFolder, ListsOnlyImageFilesByName) {
  test::TempDir d;
  for (const char* n : {"b.PNG", "a.jpg", "c.webp", "notes.txt", "out.jsonl", "d.tiff"}) Write(d / n, "x");
  std::filesystem::create_directory(d / "sub.jpg");
  EXPECT_EQ(ListImageFiles(d.path()), (std::vector<std::string>{"a.jpg", "b.PNG", "c.webp", "d.tiff"}));
  EXPECT_THROW(ListImageFiles(d / "missing"), Error);
  EXPECT_THROW(CaptionFormatForPath("x.txt"), Error);
  EXPECT_EQ(CaptionFormatForPath("X.CSV"), CaptionFormat::kCsv);
}

TEST(CaptionFolder, ResumesByHashAndRetriesFailures) {
  test::TempDir d;
  Write(d / "one.jpg", "one");
  Write(d / "two.png", "two");
  Write(d / "copy.png", "two");  // same bytes as two.png
  Write(d / "broken.jpg", "bad bytes");
  const std::string out = d / "captions.jsonl";
  FakeCaptioner fake;
  std::vector<std::string> failed, dups;
  CaptionFolderCallbacks cb;
  cb.on_failed = [&](const std::string& f, const std::string&) { failed.push_back(f); };
  cb.on_duplicate = [&](const std::string& f, const std::string& same) { dups.push_back(f + "=" + same); };
  const auto cap = [&](const std::string& p) { return fake(p); };
  CaptionFolderSummary s = CaptionFolder(d.path(), out, cap, cb);
  EXPECT_EQ(s.images, 4);
  EXPECT_EQ(s.captioned, 2);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.duplicates, 1);
  EXPECT_EQ(failed, std::vector<std::string>{"broken.jpg"});
  EXPECT_EQ(dups, std::vector<std::string>{"two.png=copy.png"});  // by name: copy.png first
  EXPECT_EQ(ReadCaptionedHashes(out, CaptionFormat::kJsonl),
            (std::set<std::string>{Sha256Hex("one", 3), Sha256Hex("two", 3)}));
  const std::string first = Read(out);
  EXPECT_NE(first.find("\"caption\":\"caption of one\""), std::string::npos) << first;

  // Second run: nothing new except the broken file, tried again (still failing).
  fake.calls.clear();
  failed.clear();
  s = CaptionFolder(d.path(), out, cap, cb);
  EXPECT_EQ(s.already_done, 3);  // two.png's bytes are done as copy.png
  EXPECT_EQ(s.captioned, 0);
  EXPECT_EQ(fake.calls, std::vector<std::string>{"broken.jpg"});
  EXPECT_EQ(Read(out), first);

  // A renamed image is still done; a fixed file and a new one are captioned, after a
  // half-written line left by a killed run.
  std::filesystem::rename(d / "one.jpg", d / "renamed.jpg");
  Write(d / "broken.jpg", "fixed");
  Write(d / "three.bmp", "three");
  std::ofstream(out, std::ios::app) << "{\"file\":\"x\",\"sha2";
  fake.calls.clear();
  s = CaptionFolder(d.path(), out, cap, cb);
  EXPECT_EQ(s.captioned, 2);
  EXPECT_EQ(s.already_done, 3);
  EXPECT_EQ(fake.calls, (std::vector<std::string>{"broken.jpg", "three.bmp"}));
  EXPECT_EQ(ReadCaptionedHashes(out, CaptionFormat::kJsonl).size(), 4u);
}

// A FIFO or a dangling link by an image's name is reported as failed (not skipped without a word,
// and not waited on: hashing a FIFO used to be able to block), and the real images are captioned.
TEST(CaptionFolder, AFifoOrDanglingLinkIsAFailureNotASilentSkipOrAHang) {
  test::TempDir d;
  Write(d / "one.jpg", "one");
  ASSERT_EQ(::mkfifo((d / "fifo.png").c_str(), 0600), 0);
  std::filesystem::create_symlink(d / "gone.jpg", d / "dangling.jpg");
  std::filesystem::create_directory(d / "folder.png");  // a folder is not an image: not listed
  EXPECT_EQ(ListImageFiles(d.path()), (std::vector<std::string>{"dangling.jpg", "fifo.png", "one.jpg"}));

  std::map<std::string, std::string> failed;
  CaptionFolderCallbacks cb;
  cb.on_failed = [&](const std::string& f, const std::string& error) { failed[f] = error; };
  FakeCaptioner fake;
  const std::string out = d / "captions.jsonl";
  auto run = std::async(std::launch::async, [&] {
    return CaptionFolder(d.path(), out, [&](const std::string& p) { return fake(p); }, cb);
  });
  ASSERT_EQ(run.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "captioning blocked on the FIFO";
  const CaptionFolderSummary s = run.get();
  EXPECT_EQ(s.images, 3);
  EXPECT_EQ(s.captioned, 1);
  EXPECT_EQ(s.failed, 2);
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_NE(failed["fifo.png"].find("not a regular file"), std::string::npos) << failed["fifo.png"];
  EXPECT_NE(failed["dangling.jpg"].find("dangling.jpg"), std::string::npos) << failed["dangling.jpg"];
  EXPECT_EQ(fake.calls, std::vector<std::string>{"one.jpg"});
}

TEST(CaptionFolder, CsvQuotesAndReadsBack) {
  test::TempDir d;
  Write(d / "a,b.jpg", "x");
  const std::string out = d / "c.csv";
  const auto cap = [](const std::string&) { return std::string("say \"hi\",\nthen go"); };
  EXPECT_EQ(CaptionFolder(d.path(), out, cap).captioned, 1);
  EXPECT_EQ(Read(out), "file,sha256,caption\n\"a,b.jpg\"," + Sha256Hex("x", 1) + ",\"say \"\"hi\"\",\nthen go\"\n");
  EXPECT_EQ(ReadCaptionedHashes(out, CaptionFormat::kCsv), std::set<std::string>{Sha256Hex("x", 1)});
  EXPECT_EQ(CaptionFolder(d.path(), out, cap).already_done, 1);
  // A CSV that is not ours is refused rather than appended to.
  Write(d / "other.csv", "name,value\nx,1\n");
  EXPECT_THROW(CaptionFolder(d.path(), d / "other.csv", cap), Error);
}

TEST(CaptionFolder, CancelStopsBetweenImagesAndKeepsWhatIsDone) {
  test::TempDir d;
  for (const char* n : {"1.jpg", "2.jpg", "3.jpg"}) Write(d / n, n);
  std::atomic<bool> cancel{false};
  CaptionFolderCallbacks cb;
  cb.cancel = &cancel;
  int progress_calls = 0;
  cb.on_captioned = [&](const CaptionRecord&, const CaptionFolderProgress& p) {
    ++progress_calls;
    EXPECT_EQ(p.total, 3);
    EXPECT_TRUE(p.eta_s.has_value());
    cancel = true;
  };
  const auto s = CaptionFolder(d.path(), d / "o.jsonl", [](const std::string&) { return std::string("c"); }, cb);
  EXPECT_TRUE(s.cancelled);
  EXPECT_EQ(s.captioned, 1);
  EXPECT_EQ(progress_calls, 1);
  EXPECT_EQ(ReadCaptionedHashes(d / "o.jsonl", CaptionFormat::kJsonl).size(), 1u);
}

TEST(CaptionFolder, AnImageStoppedMidAnswerIsNeitherWrittenNorFailed) {
  test::TempDir d;
  for (const char* n : {"1.jpg", "2.jpg", "3.jpg"}) Write(d / n, n);
  std::atomic<bool> cancel{false};
  CaptionFolderCallbacks cb;
  cb.cancel = &cancel;
  std::vector<std::string> failed;
  cb.on_failed = [&](const std::string& file, const std::string&) { failed.push_back(file); };
  int calls = 0;
  // The second image is stopped while its answer runs: the captioner gives up on it (as the
  // app's does on a "cancelled" answer) and the run ends there.
  const auto cap = [&](const std::string&) -> std::string {
    if (++calls == 2) {
      cancel = true;
      throw Error("cancelled");
    }
    return "c";
  };
  auto s = CaptionFolder(d.path(), d / "o.jsonl", cap, cb);
  EXPECT_TRUE(s.cancelled);
  EXPECT_EQ(s.captioned, 1);
  EXPECT_EQ(s.failed, 0) << "a stopped image is not a bad one";
  EXPECT_TRUE(failed.empty());
  EXPECT_EQ(calls, 2) << "nothing is started after the stop";
  // The next run does the other two, the stopped one included.
  cancel = false;
  s = CaptionFolder(d.path(), d / "o.jsonl", cap, cb);
  EXPECT_EQ(s.already_done, 1);
  EXPECT_EQ(s.captioned, 2);
  EXPECT_EQ(ReadCaptionedHashes(d / "o.jsonl", CaptionFormat::kJsonl).size(), 3u);
}

}  // namespace
}  // namespace glance
