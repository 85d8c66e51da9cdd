// Crash consistency and I/O errors of Glance's other files (issue 35), with the harness of
// test_crash_consistency.cpp: a writer runs as a child under io_fault_shim, which counts its
// write, fsync, rename... calls in the writer's folder; then for every call k:
//   KilledAtEveryCall  SIGKILLed at call k (a write: after half its bytes too): a later start finds
//                      the earlier state or the new one, whole, never a torn file; every rename into
//                      place is preceded by an fsync of the file after its last write and followed
//                      by an fsync of its folder; the writer run again reaches the new state and
//                      leaves no temporary behind
//   FullDiskOrIoError  call k and every later one fail (ENOSPC, EIO): one error line naming the
//                      file and the system's reason, the earlier state whole; once space is back
//                      the writer reaches the new state and leaves no temporary behind
//   CheckerControl     the check fails (or, for the weight cache, the reader refuses) a cut-off
//                      file, a file missing its end, and bytes changed in the middle
// Writers (crash_writer / crash_conversation_writer subcommands running the real code):
//   WeightCache     the prepared-weight cache (core/model/weight_cache.h), from an earlier cache
//                   and from none: "entries 1" or "entries 2", never a cache read with torn bytes
//   SpecRecord      the bench's per-machine record (core/engine/speculative_record.h)
//   Export          the desktop app's exports (ui/atomic_save.h: timing CSV, attention JSON/CSV/PNG)
//   Settings        the desktop app's settings file (ui/settings_file.h), 40 values replaced by 40
//                   others: "settings old" or "settings new", never a file the app cannot read
//                   (which it would set aside as settings.json.unreadable: litter here)
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/crash/crash_child.h"

namespace glance::test {
namespace {

namespace fs = std::filesystem;

struct Writer {
  std::string program;
  std::vector<std::string> write;  // the write under test; "@" is replaced by the folder
  std::vector<std::string> first;  // the earlier state's write (none: the folder starts empty)
  std::vector<std::string> check;  // prints the state a later start finds
  std::string file;                // the file written, in the folder (named by every error)
  std::string old_state, new_state;
};

Writer Describe(const std::string& name) {
  Writer w;
  if (name == "WeightCacheAfterAnEarlierCache" || name == "WeightCacheFromNoCache") {
    w.program = GLANCE_CRASH_WRITER;
    w.write = {"weight-cache", "@", "2"};
    if (name == "WeightCacheAfterAnEarlierCache") w.first = {"weight-cache", "@", "1"};
    w.check = {"weight-cache-check", "@"};
    w.file = "k.bin";
    w.old_state = w.first.empty() ? "none" : "entries 1";
    w.new_state = "entries 2";
  } else if (name == "SpecRecord") {
    w.program = GLANCE_CRASH_WRITER;
    w.write = {"spec-record", "@/speculative-record.json", "2", "1.5"};
    w.first = {"spec-record", "@/speculative-record.json", "1", "1.25"};
    w.check = {"spec-record-check", "@/speculative-record.json"};
    w.file = "speculative-record.json";
    w.old_state = "auto: measured 1.25x faster here with 1 draft token(s)";
    w.new_state = "auto: measured 1.50x faster here with 2 draft token(s)";
  }
#ifdef GLANCE_CONVERSATION_WRITER
  else if (name == "Export") {
    w.program = GLANCE_CONVERSATION_WRITER;
    w.write = {"export", "@/timing.csv", "new"};
    w.first = {"export", "@/timing.csv", "old"};
    w.check = {};  // checked here (ExportState): a Qt process per check costs a fifth of a second
    w.file = "timing.csv";
    w.old_state = "export old";
    w.new_state = "export new";
  } else if (name == "Settings") {
    w.program = GLANCE_CONVERSATION_WRITER;
    w.write = {"settings", "@/settings.json", "new"};
    w.first = {"settings", "@/settings.json", "old"};
    w.check = {"settings-check", "@/settings.json"};
    w.file = "settings.json";
    w.old_state = "settings old";
    w.new_state = "settings new";
  }
#endif
  return w;
}

// What crash_conversation_writer export FILE TAG writes (tests/crash/crash_conversation_writer.cpp).
std::string ExportBytes(const std::string& tag) {
  std::string csv = "turn,kind,name,value\n";
  for (int i = 0; i < 400; ++i) csv += std::to_string(i) + ",stage," + tag + "," + std::to_string(i * 7) + "\n";
  return csv;
}

// "export TAG" when `file` is one whole export, "export none" when it is missing, else "bad: ...".
std::string ExportState(const fs::path& file) {
  if (!fs::exists(file)) return "export none";
  const std::string bytes = Slurp(file);
  for (const std::string tag : {"old", "new"})
    if (bytes == ExportBytes(tag)) return "export " + tag;
  return "bad: not one whole export (" + std::to_string(bytes.size()) + " bytes)";
}

class OtherWriters : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    w_ = Describe(GetParam());
    ASSERT_FALSE(w_.program.empty()) << GetParam();
    root_ = fs::temp_directory_path() / ("glance_crash_writers_" + std::to_string(::getpid()) + "_" + GetParam());
    fs::remove_all(root_);
    dir_ = root_ / "files";
    fs::create_directories(dir_);
    if (!w_.first.empty()) {
      const Child first = Run(w_.first, {});
      ASSERT_EQ(first.exit_code, 0) << first.err;
    }
    ASSERT_EQ(Check(), w_.old_state);
    fs::copy(dir_, root_ / "earlier", fs::copy_options::recursive);
    // The whole write, uninterrupted: how many counted calls it makes, and in what order.
    auto env = Watch();
    env["GLANCE_FAULT_COUNT"] = (root_ / "count.txt").string();
    env["GLANCE_FAULT_LOG"] = (root_ / "calls.txt").string();
    const Child full = Run(w_.write, env);
    ASSERT_EQ(full.exit_code, 0) << full.err;
    ASSERT_EQ(Check(), w_.new_state);
    calls_ = std::atoi(Slurp(root_ / "count.txt").c_str());
    ASSERT_GE(calls_, 2) << Slurp(root_ / "calls.txt");
  }
  void TearDown() override { fs::remove_all(root_); }

  std::vector<std::string> Args(const std::vector<std::string>& args) const {
    std::vector<std::string> out;
    for (std::string a : args) {
      if (const size_t at = a.find('@'); at != std::string::npos) a.replace(at, 1, dir_.string());
      out.push_back(a);
    }
    return out;
  }
  Child Run(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
    return RunChild(w_.program, Args(args), root_ / "stderr.txt", env);
  }
  // What a later start finds.
  std::string Check() {
    if (w_.check.empty()) return ExportState(dir_ / w_.file);
    const Child c = RunChild(w_.program, Args(w_.check), root_ / "check_err.txt", {}, root_ / "check.txt");
    if (c.exit_code != 0) return "bad: the check failed: " + c.err;
    std::string s = Slurp(root_ / "check.txt");
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  }
  void Reset() {
    fs::remove_all(dir_);
    fs::copy(root_ / "earlier", dir_, fs::copy_options::recursive);
  }
  std::map<std::string, std::string> Watch() const { return {{"GLANCE_FAULT_DIR", dir_.string()}}; }
  // Files in the folder that are not the writer's file (temporaries, lock files left behind).
  std::vector<std::string> Litter() const {
    std::vector<std::string> litter;
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().filename() != w_.file) litter.push_back(e.path().filename().string());
    return litter;
  }

  Writer w_;
  fs::path root_, dir_;
  int calls_ = 0;
};

TEST_P(OtherWriters, KilledAtEveryCallLeavesTheOldOrNewFileWhole) {
  // Every rename (or link) into place is followed by an fsync of the folder it names the file in.
  // "<call> <path>" per line; an unnamed temporary (O_TMPFILE, QSaveFile's) is "#<inode> (deleted)".
  std::istringstream log(Slurp(root_ / "calls.txt"));
  std::vector<std::pair<std::string, std::string>> calls;
  for (std::string line; std::getline(log, line);) {
    const size_t space = line.find(' ');
    if (space != std::string::npos) calls.emplace_back(line.substr(0, space), line.substr(space + 1));
  }
  int named = 0;
  for (size_t i = 0; i < calls.size(); ++i) {
    const auto& [c, p] = calls[i];
    // QSaveFile links its unnamed temporary as <name>.XXXXXX before renaming it: not yet in place.
    if (c != "rename" && !(c == "link" && !std::regex_search(p, std::regex("\\.[A-Za-z0-9]{6}$")))) continue;
    if (fs::path(p).filename() != w_.file) continue;
    ++named;
    // ...and preceded by an fsync of the file after its last write (or a power cut could leave
    // the new name on a file whose bytes never reached the disk).
    int last_write = -1;
    for (size_t j = 0; j < i; ++j)
      if (calls[j].first == "write" || calls[j].first == "writev" || calls[j].first == "pwrite") last_write = static_cast<int>(j);
    ASSERT_GE(last_write, 0) << Slurp(root_ / "calls.txt");
    bool file_synced = false;
    for (size_t j = static_cast<size_t>(last_write) + 1; j < i; ++j)
      file_synced = file_synced || ((calls[j].first == "fsync" || calls[j].first == "fdatasync") &&
                                    calls[j].second == calls[static_cast<size_t>(last_write)].second);
    EXPECT_TRUE(file_synced) << "no fsync of the file's bytes before naming " << p << "\n" << Slurp(root_ / "calls.txt");
    bool synced = false;
    for (size_t j = i + 1; j < calls.size() && !synced; ++j)
      synced = calls[j].first == "fsync" && fs::path(calls[j].second) == fs::path(p).parent_path();
    EXPECT_TRUE(synced) << "no fsync of the folder after naming " << p << "\n" << Slurp(root_ / "calls.txt");
  }
  EXPECT_GE(named, 1) << Slurp(root_ / "calls.txt");

  std::map<std::string, int> found;
  for (int k = 1; k <= calls_; ++k)
    for (const bool torn : {false, true}) {
      // Cut mid-way only where there is something to cut: a kill at an fsync or rename is the same
      // with or without GLANCE_CRASH_TORN.
      const std::string& what = calls[static_cast<size_t>(k - 1)].first;
      if (torn && what != "write" && what != "writev" && what != "pwrite") continue;
      SCOPED_TRACE("killed at call " + std::to_string(k) + (torn ? " mid-write" : ""));
      Reset();
      auto env = Watch();
      env["GLANCE_CRASH_AT"] = std::to_string(k);
      if (torn) env["GLANCE_CRASH_TORN"] = "1";
      ASSERT_TRUE(Run(w_.write, env).killed);
      const std::string state = Check();
      EXPECT_TRUE(state == w_.old_state || state == w_.new_state) << state;
      ++found[state];
      // Started again on what is left.
      const Child again = Run(w_.write, {});
      ASSERT_EQ(again.exit_code, 0) << again.err;
      EXPECT_EQ(Check(), w_.new_state);
      EXPECT_EQ(Litter(), std::vector<std::string>{}) << "left behind after the rerun";
    }
  EXPECT_GT(found[w_.old_state], 0);
  EXPECT_GT(found[w_.new_state], 0) << "a kill after the rename should find the new file";
}

TEST_P(OtherWriters, FullDiskOrIoErrorIsOneLineNamingTheFileAndKeepsTheOldFile) {
  const std::string file = (dir_ / w_.file).string();
  for (int k = 1; k <= calls_; ++k)
    for (const int err : {ENOSPC, EIO}) {
      SCOPED_TRACE("call " + std::to_string(k) + " on fails with " + std::to_string(err));
      Reset();
      auto env = Watch();
      env["GLANCE_FAIL_AT"] = std::to_string(k);
      env["GLANCE_FAIL_ERRNO"] = std::to_string(err);
      const Child failed = Run(w_.write, env);
      EXPECT_EQ(failed.exit_code, 1) << failed.err;
      EXPECT_EQ(std::count(failed.err.begin(), failed.err.end(), '\n'), 1) << failed.err;
      EXPECT_NE(failed.err.find(file), std::string::npos) << failed.err;
      EXPECT_NE(failed.err.find(std::strerror(err)), std::string::npos) << failed.err;
      const std::string state = Check();
      // A failure after the rename (the folder's fsync) leaves the new file, whole.
      EXPECT_TRUE(state == w_.old_state || state == w_.new_state) << state;
      // Space is back.
      const Child again = Run(w_.write, {});
      ASSERT_EQ(again.exit_code, 0) << again.err;
      EXPECT_EQ(Check(), w_.new_state);
      EXPECT_EQ(Litter(), std::vector<std::string>{}) << "left behind after the rerun";
    }
}

TEST_P(OtherWriters, CheckerControlCatchesACutOffOrChangedFile) {
  const fs::path file = dir_ / w_.file;
  const std::string whole = Slurp(file);
  ASSERT_GT(whole.size(), 16u);
  // Cut off at several points, its end missing, a byte changed in the middle.
  for (const size_t cut : {whole.size() / 4, whole.size() / 2, whole.size() - 5}) {
    Spit(file, whole.substr(0, cut));
    const std::string state = Check();
    EXPECT_NE(state, w_.new_state) << "cut at " << cut;
    if (!w_.first.empty()) {
      EXPECT_NE(state, w_.old_state) << "cut at " << cut;
    }
  }
  std::string changed = whole;
  changed[whole.size() / 2] = static_cast<char>(changed[whole.size() / 2] ^ 0x5a);
  Spit(file, changed);
  EXPECT_NE(Check(), w_.new_state);
  // What a rename without an fsync of the file can leave after a power cut: the right length, zeros.
  Spit(file, std::string(whole.size(), '\0'));
  EXPECT_NE(Check(), w_.new_state);
  Spit(file, whole);
  EXPECT_EQ(Check(), w_.new_state);
}

std::vector<std::string> Writers() {
  std::vector<std::string> w = {"WeightCacheAfterAnEarlierCache", "WeightCacheFromNoCache", "SpecRecord"};
#ifdef GLANCE_CONVERSATION_WRITER
  w.push_back("Export");
  w.push_back("Settings");
#endif
  return w;
}

INSTANTIATE_TEST_SUITE_P(Files, OtherWriters, ::testing::ValuesIn(Writers()), [](const auto& p) { return p.param; });

// `glance-cli make-model` (issue 35): a model folder written by the real command, into an empty
// folder and over an earlier model (another seed), killed at calls spread over the run and at each
// of its last 6 (a tiny model makes a few hundred counted calls; all of them would take minutes),
// or failing there with ENOSPC/EIO. After each, every file in the folder is absent or byte for
// byte one whole file of the earlier or the new model, and config.json (what makes a folder a
// model) is never there without a whole model.safetensors, so no cut-off model loads as complete;
// a failure is a line naming the folder's file and the reason; a rerun completes the model and
// leaves no temporary behind. Control: the check catches a cut-off model.safetensors beside
// config.json (what the earlier plain ofstream left when killed).
#ifdef GLANCE_CLI
class MakeModelCrash : public ::testing::TestWithParam<bool> {
 protected:
  using Files = std::map<std::string, std::string>;
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("glance_crash_make_model_" + std::to_string(::getpid()) +
                                         (GetParam() ? "_over" : "_new"));
    fs::remove_all(root_);
    fs::create_directories(root_);
    dir_ = root_ / "model";
    // The two whole models, uninterrupted.
    ASSERT_EQ(Make(root_ / "old", "1", {}).exit_code, 0);
    ASSERT_EQ(Make(root_ / "new", "2", {}).exit_code, 0);
    old_ = Read(root_ / "old");
    new_ = Read(root_ / "new");
    ASSERT_NE(old_.at("model.safetensors"), new_.at("model.safetensors"));
    Reset();
    auto env = Watch();
    env["GLANCE_FAULT_COUNT"] = (root_ / "count.txt").string();
    ASSERT_EQ(Make(dir_, "2", env).exit_code, 0);
    calls_ = std::atoi(Slurp(root_ / "count.txt").c_str());
    ASSERT_GE(calls_, 10);
  }
  void TearDown() override { fs::remove_all(root_); }
  // `n` calls spread over the run, and its last 6 (the weights' rename, then config.json's write,
  // fsync, rename and the folder's fsync: where a wrong order would show).
  std::set<int> Points(int n) const {
    std::set<int> points;
    for (int k = 1; k <= calls_; k += std::max(1, calls_ / n)) points.insert(k);
    for (int k = std::max(1, calls_ - 5); k <= calls_; ++k) points.insert(k);
    return points;
  }
  Child Make(const fs::path& out, const std::string& seed, const std::map<std::string, std::string>& env) {
    return RunChild(GLANCE_CLI, {"make-model", "--shape", "tiny", "--out", out.string(), "--seed", seed, "--threads", "1",
                                 "--quiet"},
                    root_ / "stderr.txt", env, root_ / "stdout.txt");
  }
  void Reset() {
    fs::remove_all(dir_);
    if (GetParam()) fs::copy(root_ / "old", dir_, fs::copy_options::recursive);
  }
  std::map<std::string, std::string> Watch() const { return {{"GLANCE_FAULT_DIR", dir_.string()}}; }
  static Files Read(const fs::path& dir) {
    Files files;
    for (const auto& e : fs::directory_iterator(dir)) files[e.path().filename().string()] = Slurp(e.path());
    return files;
  }
  // "" when what is in the folder is whole (see above), else why not.
  std::string Problem() const {
    if (!fs::exists(dir_)) return "";
    const Files now = Read(dir_);
    for (const auto& [name, bytes] : now) {
      if (name.find(".glance-tmp-") != std::string::npos) continue;  // hidden temporary: removed by the next run
      const auto o = old_.find(name), n = new_.find(name);
      if (!(GetParam() && o != old_.end() && o->second == bytes) && !(n != new_.end() && n->second == bytes))
        return name + " is not one whole file of either model (" + std::to_string(bytes.size()) + " bytes)";
    }
    if (now.count("config.json") && !now.count("model.safetensors")) return "config.json without model.safetensors";
    return "";
  }
  fs::path root_, dir_;
  Files old_, new_;
  int calls_ = 0;
};

TEST_P(MakeModelCrash, KilledAnywhereLeavesNoModelThatLoadsCutOff) {
  int whole_new = 0, checked = 0;
  for (const int k : Points(6))  // 1 to 2 s a point on a loaded 2-core machine
    for (const bool torn : {false, true}) {
      SCOPED_TRACE("killed at call " + std::to_string(k) + " of " + std::to_string(calls_) + (torn ? " mid-write" : ""));
      Reset();
      auto env = Watch();
      env["GLANCE_CRASH_AT"] = std::to_string(k);
      if (torn) env["GLANCE_CRASH_TORN"] = "1";
      const Child killed = Make(dir_, "2", env);
      if (!killed.killed) continue;  // call k was not a write (torn): nothing cut
      ++checked;
      EXPECT_EQ(Problem(), "");
      if (fs::exists(dir_) && Read(dir_) == new_) ++whole_new;
      const Child again = Make(dir_, "2", {});
      ASSERT_EQ(again.exit_code, 0) << again.err;
      EXPECT_EQ(Read(dir_), new_) << "a rerun leaves the new model, whole, and no temporary";
    }
  EXPECT_GE(checked, 8);
  // Control: the check catches what a plain ofstream left, a cut-off model.safetensors beside config.json.
  Reset();
  fs::create_directories(dir_);
  for (const auto& [name, bytes] : new_) Spit(dir_ / name, bytes);
  Spit(dir_ / "model.safetensors", new_.at("model.safetensors").substr(0, new_.at("model.safetensors").size() / 2));
  EXPECT_NE(Problem(), "");
  fs::remove(dir_ / "model.safetensors");
  EXPECT_EQ(Problem(), "config.json without model.safetensors");
}

TEST_P(MakeModelCrash, FullDiskOrIoErrorIsOneLineAndNoModelThatLoadsCutOff) {
  int i = 0;
  for (const int k : Points(4))
    for (const int err : {i++ % 2 ? EIO : ENOSPC}) {
      SCOPED_TRACE("call " + std::to_string(k) + " on fails with " + std::to_string(err));
      Reset();
      auto env = Watch();
      env["GLANCE_FAIL_AT"] = std::to_string(k);
      env["GLANCE_FAIL_ERRNO"] = std::to_string(err);
      const Child failed = Make(dir_, "2", env);
      EXPECT_EQ(failed.exit_code, 1) << failed.err;
      EXPECT_NE(failed.err.find(std::strerror(err)), std::string::npos) << failed.err;
      EXPECT_NE(failed.err.find(dir_.string()), std::string::npos) << failed.err;
      EXPECT_EQ(Problem(), "");
      const Child again = Make(dir_, "2", {});
      ASSERT_EQ(again.exit_code, 0) << again.err;
      EXPECT_EQ(Read(dir_), new_);
    }
}

INSTANTIATE_TEST_SUITE_P(Model, MakeModelCrash, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? std::string("OverAnEarlierModel") : std::string("IntoANewFolder"); });
#endif

}  // namespace
}  // namespace glance::test
