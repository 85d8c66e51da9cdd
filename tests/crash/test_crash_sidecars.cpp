// Crash consistency of caption sidecars (issue 33), with the harness of test_crash_consistency.cpp:
// crash_writer's sidecar mode runs under io_fault_shim, which counts its write, fsync, rename...
// calls in the image folder (the sidecars' temporaries, the renames, the folders' records, the
// output file); then for every call k:
//   KilledAtEveryCall  SIGKILLed at call k (a write: after half its bytes too): every sidecar is
//                      whole, as before the run or as the run leaves it, never part; the one edited
//                      by hand is untouched; every rename into place is followed by an fsync of its
//                      folder; a rerun ends in exactly the state of an uninterrupted run, reports
//                      only the hand-edited sidecar as protected, and leaves no temporary behind
//   FullDiskOrIoError  call k and every later one fail (ENOSPC, EIO): the images hit fail with one
//                      line each naming the file, every sidecar whole, and a rerun completes it
//   CheckerControl     the checker fails a cut-off sidecar, a hand edit overwritten, a doubled append
// Modes: skip, overwrite, and append into an output file (resume by its rows).
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/crash/crash_child.h"

namespace glance::test {
namespace {

namespace fs = std::filesystem;

const char* const kHandText = "written by hand, keep me\n";
const std::vector<std::string> kSidecars = {"a.txt", "b.txt", "c.txt", "sub/d.txt", "sub/e.txt"};

using Files = std::map<std::string, std::string>;  // path in the folder -> bytes

// Every regular file under `dir`, by relative path.
Files Snapshot(const fs::path& dir) {
  Files files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files[fs::relative(e.path(), dir).string()] = Slurp(e.path());
  return files;
}

bool IsLeftover(const std::string& path) { return path.find(".glance-tmp-") != std::string::npos; }

// Empty when every sidecar is whole: its bytes before the run (or absent, if it had none) or after
// it. The hand-edited one must be as it was.
std::string SidecarProblem(const Files& now, const Files& before, const Files& after) {
  for (const std::string& s : kSidecars) {
    const auto n = now.find(s), b = before.find(s), a = after.find(s);
    if (n == now.end()) {
      if (b != before.end()) return s + " is gone";
      continue;
    }
    const bool old = b != before.end() && n->second == b->second;
    const bool fresh = a != after.end() && n->second == a->second;
    if (!old && !fresh) return s + " is neither its old nor its new text: " + n->second;
  }
  if (now.count("c.txt") == 0 || now.at("c.txt") != kHandText) return "c.txt (edited by hand) was changed";
  return "";
}

class SidecarFiles : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    mode_ = GetParam();
    root_ = fs::temp_directory_path() / ("glance_crash_sidecars_" + std::to_string(::getpid()) + "_" + mode_);
    fs::remove_all(root_);
    images_ = root_ / "images";
    fs::create_directories(images_ / "sub");
    // An earlier run gave b and sub/e their sidecars; a, c and sub/d came later, and c.txt was
    // written by hand.
    Spit(images_ / "b.png", "image b");
    Spit(images_ / "sub/e.png", "image e");
    const Child first = RunChild(GLANCE_CRASH_WRITER, {"sidecar", images_.string(), "skip", "old"}, root_ / "err.txt", {});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    Spit(images_ / "a.png", "image a");
    Spit(images_ / "c.png", "image c");
    Spit(images_ / "sub/d.png", "image d");
    Spit(images_ / "c.txt", kHandText);
    fs::copy(images_, root_ / "earlier", fs::copy_options::recursive);
    before_ = Snapshot(images_);
    // The whole run, uninterrupted: how many counted calls it makes, what it leaves, and the order.
    auto env = Watch();
    env["GLANCE_FAULT_COUNT"] = (root_ / "count.txt").string();
    env["GLANCE_FAULT_LOG"] = (root_ / "calls.txt").string();
    const Child full = Run(env);
    ASSERT_EQ(full.exit_code, 0) << full.err;
    calls_ = std::atoi(Slurp(root_ / "count.txt").c_str());
    after_ = Snapshot(images_);
    ASSERT_EQ(after_.at("c.txt"), kHandText);
    for (const std::string& s : kSidecars) ASSERT_TRUE(after_.count(s)) << s;
    if (mode_ != "skip") {
      ASSERT_NE(after_.at("b.txt"), before_.at("b.txt"));
    }
    ASSERT_EQ(SidecarProblem(after_, before_, after_), "");
  }
  void TearDown() override { fs::remove_all(root_); }

  std::map<std::string, std::string> Watch() const { return {{"GLANCE_FAULT_DIR", images_.string()}}; }
  // The run under test: MODE, tag "new", into an output file when appending.
  Child Run(const std::map<std::string, std::string>& env) {
    std::vector<std::string> args = {"sidecar", images_.string(), mode_, "new"};
    if (mode_ == "append") args.push_back((images_ / "run.jsonl").string());
    return RunChild(GLANCE_CRASH_WRITER, args, root_ / "err.txt", env);
  }
  void Reset() {
    fs::remove_all(images_);
    fs::copy(root_ / "earlier", images_, fs::copy_options::recursive);
  }
  // The sidecars (and the hand-edited one) of a state, for comparing two states.
  static Files Sidecars(const Files& f) {
    Files s;
    for (const std::string& p : kSidecars)
      if (f.count(p)) s[p] = f.at(p);
    return s;
  }
  std::string ExpectedProtected() const {
    return mode_ == "skip" ? "" : "protected: " + (images_ / "c.txt").string() + "\n";
  }
  static std::string ProtectedLines(const std::string& err) {
    std::istringstream lines(err);
    std::string line, out;
    while (std::getline(lines, line))
      if (line.rfind("protected: ", 0) == 0) out += line + "\n";
    return out;
  }

  std::string mode_;
  fs::path root_, images_;
  Files before_, after_;
  int calls_ = 0;
};

TEST_P(SidecarFiles, KilledAtEveryCallLeavesEachSidecarWholeAndARerunCompletesIt) {
  // Each sidecar written: its record's write and fdatasync, the temporary's write and fsync, the
  // rename, the folder's fsync.
  ASSERT_GE(calls_, 6 * (mode_ == "skip" ? 2 : 4)) << Slurp(root_ / "calls.txt");
  // Every rename into place is followed by an fsync of the folder it names the file in.
  std::istringstream log(Slurp(root_ / "calls.txt"));
  std::vector<std::pair<std::string, std::string>> calls;
  std::string call, path;
  while (log >> call >> path) calls.emplace_back(call, path);
  int renames = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (calls[i].first != "rename") continue;
    ++renames;
    bool synced = false;
    for (size_t j = i + 1; j < calls.size() && !synced; ++j)
      synced = calls[j].first == "fsync" && fs::path(calls[j].second) == fs::path(calls[i].second).parent_path();
    EXPECT_TRUE(synced) << "no fsync of the folder after naming " << calls[i].second;
  }
  EXPECT_EQ(renames, mode_ == "skip" ? 2 : 4);

  int leftovers_seen = 0, mixed_states = 0;
  for (int k = 1; k <= calls_; ++k)
    for (const bool torn : {false, true}) {
      SCOPED_TRACE("killed at call " + std::to_string(k) + (torn ? " mid-write" : ""));
      Reset();
      auto env = Watch();
      env["GLANCE_CRASH_AT"] = std::to_string(k);
      if (torn) env["GLANCE_CRASH_TORN"] = "1";
      ASSERT_TRUE(Run(env).killed);
      const Files left = Snapshot(images_);
      ASSERT_EQ(SidecarProblem(left, before_, after_), "");
      leftovers_seen += std::any_of(left.begin(), left.end(), [](const auto& f) { return IsLeftover(f.first); });
      mixed_states += Sidecars(left) != Sidecars(before_) && Sidecars(left) != Sidecars(after_);
      // Glance run again on what is left.
      const Child again = Run({});
      ASSERT_EQ(again.exit_code, 0) << again.err;
      const Files done = Snapshot(images_);
      EXPECT_EQ(Sidecars(done), Sidecars(after_));
      EXPECT_EQ(ProtectedLines(again.err), ExpectedProtected()) << again.err;
      for (const auto& [name, bytes] : done) EXPECT_FALSE(IsLeftover(name)) << name << " left behind";
    }
  EXPECT_GT(leftovers_seen, 0) << "kills before a rename should have left temporaries for the rerun to remove";
  EXPECT_GT(mixed_states, 0) << "kills part way should have left some sidecars old and some new";
}

TEST_P(SidecarFiles, FullDiskOrIoErrorFailsTheImageInOneLineAndKeepsEverySidecarWhole) {
  for (int k = 1; k <= calls_; ++k)
    for (const int err : {ENOSPC, EIO}) {
      SCOPED_TRACE("call " + std::to_string(k) + " on fails with " + std::to_string(err));
      Reset();
      auto env = Watch();
      env["GLANCE_FAIL_AT"] = std::to_string(k);
      env["GLANCE_FAIL_ERRNO"] = std::to_string(err);
      const Child failed = Run(env);
      std::istringstream lines(failed.err);
      std::string line;
      int failures = 0;  // an image that failed, or the run (its output file could not be written)
      while (std::getline(lines, line)) {
        if (line.rfind("failed: ", 0) != 0 && line.rfind("error: ", 0) != 0) continue;
        ++failures;
        EXPECT_NE(line.find(images_.string()), std::string::npos) << line;
        EXPECT_NE(line.find(std::strerror(err)), std::string::npos) << line;
      }
      EXPECT_EQ(failed.exit_code, failures > 0 ? 1 : 0) << failed.err;
      EXPECT_EQ(SidecarProblem(Snapshot(images_), before_, after_), "");
      // Space is back: the next run completes it.
      const Child again = Run({});
      ASSERT_EQ(again.exit_code, 0) << again.err;
      const Files done = Snapshot(images_);
      EXPECT_EQ(Sidecars(done), Sidecars(after_));
      EXPECT_EQ(ProtectedLines(again.err), ExpectedProtected()) << again.err;
      for (const auto& [name, bytes] : done) EXPECT_FALSE(IsLeftover(name)) << name << " left behind";
    }
}

TEST_P(SidecarFiles, CheckerControlCatchesACutOffSidecarAnOverwrittenEditAndADoubledAppend) {
  Files cut = after_;
  cut["a.txt"] = cut["a.txt"].substr(0, cut["a.txt"].size() / 2);
  EXPECT_NE(SidecarProblem(cut, before_, after_), "");
  Files overwritten = after_;
  overwritten["c.txt"] = after_.at("a.txt");
  EXPECT_NE(SidecarProblem(overwritten, before_, after_), "");
  Files doubled = after_;
  doubled["b.txt"] += ", " + doubled["b.txt"];
  EXPECT_NE(SidecarProblem(doubled, before_, after_), "");
  EXPECT_NE(Sidecars(doubled), Sidecars(after_));
}

INSTANTIATE_TEST_SUITE_P(Modes, SidecarFiles, ::testing::Values("skip", "overwrite", "append"),
                         [](const auto& p) { return p.param; });

}  // namespace
}  // namespace glance::test
