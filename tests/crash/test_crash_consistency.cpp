// Crash consistency and I/O errors of the files Glance writes (issue 35), the way SQLite tests
// its own: a writer runs as a child process under io_fault_shim, which counts its write, fsync,
// rename... calls on the output folder; then for every call k:
//   CaptionCrash   the child is SIGKILLed at call k (and, for a write, after half its bytes: a
//                  power cut mid-write); the earlier file must still be there byte for byte, and
//                  the captioner run again on what is left must end with every image exactly once,
//                  each caption whole, with a one-line notice when it set aside a cut-off record
//   CaptionFault   call k and every later one fail with ENOSPC or EIO (a disk that fills up and
//                  stays full): one error line naming the file, the file whole (earlier records and
//                  whole new ones only), and a run once space is back completes it
//   CaptionCheckerControl  the checker itself fails a cut-off file, a duplicated or missing row,
//                  and the old recovery (a line break after the cut-off record, then new rows)
// Both formats (.jsonl, .csv with quoted two-line captions), from no file and from an earlier run.
//   ConversationSave  the desktop app's ConversationStore saving a second turn and keeping an image
//                  (ui/atomic_save.h): killed at every call (whole and mid-write), Glance then finds the
//                  one-turn or the two-turn conversation, whole, and only whole kept images; every
//                  rename is followed by an fsync of its folder (a power cut keeps the new name);
//                  ENOSPC/EIO at every call: one error line naming the file, the conversation
//                  whole, and a save once space is back succeeds; negative controls: the check
//                  fails a cut-off conversation file and a cut-off kept image
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/crash/crash_child.h"
#include "tests/crash/fake_caption.h"

namespace glance::test {
namespace {

namespace fs = std::filesystem;

// The writer under test: this build's, or another build's named by $GLANCE_CRASH_WRITER_OVERRIDE
// (how the harness was shown to catch the old caption writer; docs/testing.md).
const char* Writer() {
  const char* other = std::getenv("GLANCE_CRASH_WRITER_OVERRIDE");
  return other && *other ? other : GLANCE_CRASH_WRITER;
}

// crash_writer caption DIR OUT.
Child RunWriter(const fs::path& dir, const fs::path& out, const std::map<std::string, std::string>& env) {
  return RunChild(Writer(), {"caption", dir.string(), out.string()}, out.parent_path() / "stderr.txt", env);
}

bool IsSha256(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// The file's rows (file -> caption, in order) when every byte of it is a whole record; otherwise
// `problem` says what is wrong. An independent, strict reader: not the one Glance uses.
struct Parsed {
  std::vector<std::pair<std::string, std::string>> rows;
  std::string problem;
};

Parsed ParseStrict(const std::string& text, bool csv) {
  Parsed p;
  if (text.empty()) return p;
  if (text.back() != '\n') {
    p.problem = "does not end with a whole record";
    return p;
  }
  if (!csv) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_object() || j.size() != 3 || !j.value("file", nlohmann::json()).is_string() ||
          !IsSha256(j.value("sha256", std::string())) || !j.value("caption", nlohmann::json()).is_string()) {
        p.problem = "not a caption record: " + line.substr(0, 80);
        return p;
      }
      p.rows.emplace_back(j["file"], j["caption"]);
    }
    return p;
  }
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
      else if (c == '"') quoted = false;
      else field += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(field), field.clear();
    } else if (c == '\n') {
      row.push_back(field), field.clear();
      records.push_back(row), row.clear();
    } else {
      field += c;
    }
  }
  if (quoted || !row.empty() || !field.empty()) {
    p.problem = "ends inside a record";
    return p;
  }
  if (records.empty() || records[0] != std::vector<std::string>{"file", "sha256", "caption"}) {
    p.problem = "no header";
    return p;
  }
  for (size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != 3 || !IsSha256(records[r][1])) {
      p.problem = "not a caption record at row " + std::to_string(r);
      return p;
    }
    p.rows.emplace_back(records[r][0], records[r][2]);
  }
  return p;
}

// Empty when `text` is the finished state: every image exactly once with its caption, whole.
std::string FinalStateProblem(const std::string& text, bool csv, const std::vector<std::string>& images) {
  const Parsed p = ParseStrict(text, csv);
  if (!p.problem.empty()) return p.problem;
  std::map<std::string, int> seen;
  for (const auto& [file, caption] : p.rows) {
    if (++seen[file] > 1) return file + " is captioned twice";
    if (caption != FakeCaption(file)) return file + "'s caption is not whole: " + caption;
  }
  for (const std::string& image : images)
    if (!seen.count(image)) return image + " is missing";
  if (seen.size() != images.size()) return "rows for images that are not there";
  return "";
}

class CaptionFiles : public ::testing::TestWithParam<std::tuple<bool, bool>> {
 protected:
  void SetUp() override {
    csv_ = std::get<0>(GetParam());
    from_earlier_run_ = std::get<1>(GetParam());
    root_ = fs::temp_directory_path() / ("glance_crash_" + std::to_string(::getpid()) + "_" + (csv_ ? "csv" : "jsonl") +
                                         (from_earlier_run_ ? "_earlier" : "_fresh"));
    fs::remove_all(root_);
    fs::create_directories(root_ / "images");
    fs::create_directories(root_ / "out");
    out_ = root_ / "out" / (csv_ ? "captions.csv" : "captions.jsonl");
    // An earlier run captioned two images; four more arrived since.
    for (int i = 0; i < 6; ++i) {
      const std::string name = "img" + std::to_string(i) + ".png";
      if (i == 2 && from_earlier_run_) {
        const Child first = RunWriter(root_ / "images", out_, {});
        ASSERT_EQ(first.exit_code, 0) << first.err;
        earlier_ = Slurp(out_);
      }
      Spit(root_ / "images" / name, "image bytes " + std::to_string(i));
      images_.push_back(name);
    }
    if (!from_earlier_run_) images_before_ = 0;
    else images_before_ = 2;
    // How many counted calls the whole run makes, and its result (the new state).
    Reset();
    const fs::path count = root_ / "count.txt";
    const Child full = RunWriter(root_ / "images", out_, {{"GLANCE_FAULT_DIR", (root_ / "out").string()},
                                                         {"GLANCE_FAULT_COUNT", count.string()}});
    ASSERT_EQ(full.exit_code, 0) << full.err;
    calls_ = std::atoi(Slurp(count).c_str());
    ASSERT_EQ(FinalStateProblem(Slurp(out_), csv_, images_), "");
  }
  void TearDown() override { fs::remove_all(root_); }

  // The output folder as the earlier run left it.
  void Reset() {
    fs::remove(out_);
    fs::remove(out_.string() + ".torn");
    if (from_earlier_run_) Spit(out_, earlier_);
  }

  bool csv_ = false, from_earlier_run_ = false;
  fs::path root_, out_;
  std::string earlier_;
  std::vector<std::string> images_;
  int images_before_ = 0;
  int calls_ = 0;
};

TEST_P(CaptionFiles, CaptionCrashLeavesTheOldOrNewStateAndARerunCompletesIt) {
  // Each record: one write and one fdatasync (CSV: the header too); a new file: its folder's fsync.
  ASSERT_GE(calls_, 2 * (6 - images_before_));
  int torn_states = 0;
  for (int k = 1; k <= calls_; ++k)
    for (const bool torn : {false, true}) {
      SCOPED_TRACE("killed at call " + std::to_string(k) + (torn ? " mid-write" : ""));
      Reset();
      std::map<std::string, std::string> env = {{"GLANCE_FAULT_DIR", (root_ / "out").string()},
                                                {"GLANCE_CRASH_AT", std::to_string(k)}};
      if (torn) env["GLANCE_CRASH_TORN"] = "1";
      const Child crashed = RunWriter(root_ / "images", out_, env);
      ASSERT_TRUE(crashed.killed) << crashed.err;
      const std::string left = fs::exists(out_) ? Slurp(out_) : "";
      ASSERT_EQ(left.compare(0, earlier_.size(), earlier_), 0) << "the earlier captions were changed";
      const bool whole = ParseStrict(left, csv_).problem.empty();
      torn_states += !whole;
      // Glance started again on what is left.
      const Child again = RunWriter(root_ / "images", out_, {});
      ASSERT_EQ(again.exit_code, 0) << again.err;
      EXPECT_EQ(FinalStateProblem(Slurp(out_), csv_, images_), "") << "left by the crash:\n" << left;
      if (!whole) {
        EXPECT_NE(again.err.find(out_.string() + ": its last line was cut off"), std::string::npos) << again.err;
        EXPECT_TRUE(fs::exists(out_.string() + ".torn"));
      } else {
        EXPECT_EQ(again.err.find("cut off"), std::string::npos) << again.err;
      }
    }
  EXPECT_GE(torn_states, 6 - images_before_) << "the mid-write kills should have left cut-off records";
}

TEST_P(CaptionFiles, CaptionFaultIsOneLineNamingTheFileAndKeepsTheFileWhole) {
  for (int k = 1; k <= calls_; ++k)
    for (const int err : {ENOSPC, EIO}) {
      SCOPED_TRACE("call " + std::to_string(k) + " on fails with " + std::to_string(err));
      Reset();
      const Child failed = RunWriter(root_ / "images", out_, {{"GLANCE_FAULT_DIR", (root_ / "out").string()},
                                                              {"GLANCE_FAIL_AT", std::to_string(k)},
                                                              {"GLANCE_FAIL_ERRNO", std::to_string(err)}});
      EXPECT_EQ(failed.exit_code, 1) << failed.err;
      EXPECT_EQ(std::count(failed.err.begin(), failed.err.end(), '\n'), 1) << failed.err;
      EXPECT_NE(failed.err.find(out_.string()), std::string::npos) << failed.err;
      EXPECT_NE(failed.err.find(std::strerror(err)), std::string::npos) << failed.err;
      const std::string left = fs::exists(out_) ? Slurp(out_) : "";
      EXPECT_EQ(left.compare(0, earlier_.size(), earlier_), 0) << "the earlier captions were changed";
      EXPECT_EQ(ParseStrict(left, csv_).problem, "") << left;
      // Space is back: the next run completes the file.
      const Child again = RunWriter(root_ / "images", out_, {});
      ASSERT_EQ(again.exit_code, 0) << again.err;
      EXPECT_EQ(FinalStateProblem(Slurp(out_), csv_, images_), "");
    }
}

TEST_P(CaptionFiles, CaptionCheckerControlCatchesTornDuplicatedAndMissingRows) {
  const std::string done = Slurp(out_);  // the finished state SetUp made
  ASSERT_EQ(FinalStateProblem(done, csv_, images_), "");
  // A run killed mid-write, checked as it was left: the harness sees the cut-off record.
  Reset();
  const Child crashed = RunWriter(root_ / "images", out_, {{"GLANCE_FAULT_DIR", (root_ / "out").string()},
                                                           {"GLANCE_CRASH_AT", std::to_string(calls_ - 1)},
                                                           {"GLANCE_CRASH_TORN", "1"}});
  ASSERT_TRUE(crashed.killed);
  const std::string torn = Slurp(out_);
  EXPECT_NE(FinalStateProblem(torn, csv_, images_), "");
  // What the old code did next: a line break after the cut-off record, then the new rows.
  const size_t last_row = done.rfind(csv_ ? "img5.png," : "{\"file\":\"img5.png\"");
  ASSERT_NE(last_row, std::string::npos);
  EXPECT_NE(FinalStateProblem(torn + "\n" + done.substr(last_row), csv_, images_), "");
  // A row written twice, a row lost.
  EXPECT_NE(FinalStateProblem(done + done.substr(last_row), csv_, images_), "");
  EXPECT_NE(FinalStateProblem(done.substr(0, last_row), csv_, images_), "");
}

INSTANTIATE_TEST_SUITE_P(Formats, CaptionFiles, ::testing::Combine(::testing::Bool(), ::testing::Bool()),
                         [](const auto& p) {
                           return std::string(std::get<0>(p.param) ? "Csv" : "Jsonl") +
                                  (std::get<1>(p.param) ? "AfterAnEarlierRun" : "FromNoFile");
                         });

#ifdef GLANCE_CONVERSATION_WRITER
class ConversationSave : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("glance_crash_conv_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    folder_ = root_ / "conversations";
    fs::copy_file(std::string(GLANCE_SOURCE_RESOURCES) + "/demo-image.png", root_ / "first.png");
    Spit(root_ / "second.png", "the second image's bytes");
    const Child first = Run({"save", folder_.string(), (root_ / "first.png").string()}, {});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    ASSERT_EQ(Check(), "turns 1");
    fs::copy(folder_, root_ / "earlier", fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(root_); }

  Child Run(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
    return RunChild(GLANCE_CONVERSATION_WRITER, args, root_ / "stderr.txt", env);
  }
  // What Glance finds in the folder: "turns N" or "bad: ...".
  std::string Check() {
    const std::string out = (root_ / "check.txt").string();
    const std::string cmd = std::string(GLANCE_CONVERSATION_WRITER) + " check '" + folder_.string() + "' > '" + out + "'";
    if (std::system(cmd.c_str()) != 0) return "bad: the check did not run";
    std::string s = Slurp(out);
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }
  void Reset() {
    fs::remove_all(folder_);
    fs::copy(root_ / "earlier", folder_, fs::copy_options::recursive);
  }
  std::map<std::string, std::string> Watch() { return {{"GLANCE_FAULT_DIR", folder_.string()}}; }
  std::vector<std::string> SaveSecond() { return {"save", folder_.string(), (root_ / "second.png").string()}; }

  fs::path root_, folder_;
};

TEST_F(ConversationSave, KilledAtEveryCallLeavesTheOldOrNewConversationWhole) {
  Reset();
  auto env = Watch();
  env["GLANCE_FAULT_COUNT"] = (root_ / "count.txt").string();
  env["GLANCE_FAULT_LOG"] = (root_ / "calls.txt").string();
  const Child full = Run(SaveSecond(), env);
  ASSERT_EQ(full.exit_code, 0) << full.err;
  ASSERT_EQ(Check(), "turns 2");
  const int calls = std::atoi(Slurp(root_ / "count.txt").c_str());
  // Every rename into place (or link of an unnamed file, QSaveFile's way for a new file) is
  // followed by an fsync of the folder it named the file in.
  std::istringstream log(Slurp(root_ / "calls.txt"));
  std::vector<std::pair<std::string, std::string>> calls_made;
  std::string call, path;
  while (log >> call >> path) calls_made.emplace_back(call, path);
  std::set<std::string> named;
  for (size_t i = 0; i < calls_made.size(); ++i) {
    const auto& [c, p] = calls_made[i];
    if (c != "rename" && !(c == "link" && !std::regex_search(p, std::regex("\\.[A-Za-z0-9]{6}$")))) continue;
    named.insert(p);
    bool synced = false;
    for (size_t j = i + 1; j < calls_made.size() && !synced; ++j)
      synced = calls_made[j].first == "fsync" && fs::path(calls_made[j].second) == fs::path(p).parent_path();
    EXPECT_TRUE(synced) << "no fsync of the folder after naming " << p << "\n" << Slurp(root_ / "calls.txt");
  }
  const size_t renames = named.size();
  EXPECT_EQ(renames, 2u) << Slurp(root_ / "calls.txt");  // the kept image, the conversation
  std::map<std::string, int> found;
  for (int k = 1; k <= calls; ++k)
    for (const bool torn : {false, true}) {
      SCOPED_TRACE("killed at call " + std::to_string(k) + (torn ? " mid-write" : ""));
      Reset();
      auto crash = Watch();
      crash["GLANCE_CRASH_AT"] = std::to_string(k);
      if (torn) crash["GLANCE_CRASH_TORN"] = "1";
      ASSERT_TRUE(Run(SaveSecond(), crash).killed);
      const std::string state = Check();
      EXPECT_TRUE(state == "turns 1" || state == "turns 2") << state;
      ++found[state];
    }
  EXPECT_GT(found["turns 1"], 0);
  EXPECT_GT(found["turns 2"], 0) << "a kill after the last rename should find the new conversation";

  // Negative controls: the check sees a cut-off conversation and a cut-off kept image.
  Reset();
  const fs::path conversation = folder_ / "c1.json";
  fs::resize_file(conversation, fs::file_size(conversation) / 2);
  EXPECT_EQ(Check().rfind("bad:", 0), 0u) << Check();
  Reset();
  // Kept images are images/<sha256>/<their own name> (or images/<sha256>.<suffix> from before).
  int images = 0;
  for (const auto& image : fs::recursive_directory_iterator(folder_ / "images"))
    if (image.is_regular_file()) fs::resize_file(image.path(), 100), ++images;
  ASSERT_GT(images, 0);
  EXPECT_EQ(Check().rfind("bad:", 0), 0u) << Check();
}

TEST_F(ConversationSave, AFullDiskOrIoErrorIsOneLineNamingTheFileAndTheConversationStaysWhole) {
  Reset();
  auto env = Watch();
  env["GLANCE_FAULT_COUNT"] = (root_ / "count.txt").string();
  ASSERT_EQ(Run(SaveSecond(), env).exit_code, 0);
  const int calls = std::atoi(Slurp(root_ / "count.txt").c_str());
  ASSERT_GE(calls, 4);
  for (int k = 1; k <= calls; ++k)
    for (const int err : {ENOSPC, EIO}) {
      SCOPED_TRACE("call " + std::to_string(k) + " on fails with " + std::to_string(err));
      Reset();
      auto fail = Watch();
      fail["GLANCE_FAIL_AT"] = std::to_string(k);
      fail["GLANCE_FAIL_ERRNO"] = std::to_string(err);
      const Child failed = Run(SaveSecond(), fail);
      EXPECT_EQ(failed.exit_code, 1) << failed.err;
      EXPECT_EQ(std::count(failed.err.begin(), failed.err.end(), '\n'), 1) << failed.err;
      EXPECT_NE(failed.err.find(folder_.string()), std::string::npos) << failed.err;
      const std::string state = Check();
      EXPECT_TRUE(state == "turns 1" || state == "turns 2") << state;
      const Child again = Run(SaveSecond(), {});
      EXPECT_EQ(again.exit_code, 0) << again.err;
    }
}
#endif

}  // namespace
}  // namespace glance::test
