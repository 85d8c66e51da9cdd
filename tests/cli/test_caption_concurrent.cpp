// core/engine/caption_folder.h with CaptionFolderOptions::concurrency > 1 and a fake captioner
// (issue 33, remote captioning): up to N images in flight at once, every write and callback on
// the caller's thread, each image captioned exactly once across an interrupted run and its rerun,
// failures retried next run, identical images' sidecars from one caption.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/engine/caption_folder.h"
#include "core/util/error.h"
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

// file -> caption of every row of a .jsonl, failing the test on a line that does not parse or
// an image in it twice.
std::map<std::string, std::string> Rows(const std::string& path) {
  std::map<std::string, std::string> rows;
  std::istringstream lines(Read(path));
  std::string line;
  while (std::getline(lines, line)) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << line;
    if (j.is_discarded()) continue;
    EXPECT_TRUE(rows.emplace(j["file"].get<std::string>(), j["caption"].get<std::string>()).second)
        << j["file"] << " captioned twice";
  }
  return rows;
}

// A captioner that counts the calls in flight; `hold` makes each call wait until `hold` calls are
// in flight together (or 2 s pass), so a run that never has them in flight at once is slow and
// shows max_in_flight 1.
struct CountingCaptioner {
  std::mutex m;
  std::condition_variable cv;
  int in_flight = 0, max_in_flight = 0, hold = 1;
  std::map<std::string, int> calls;  // image name -> times captioned
  std::set<std::string> fail;        // image names whose captioning throws
  std::string operator()(const std::string& path) {
    const std::string name = std::filesystem::path(path).filename().string();
    std::unique_lock lock(m);
    ++calls[name];
    ++in_flight;
    max_in_flight = std::max(max_in_flight, in_flight);
    cv.notify_all();
    cv.wait_for(lock, std::chrono::seconds(2), [&] { return in_flight >= hold; });
    --in_flight;
    if (fail.count(name)) throw Error(path + ": the server said no");
    return "caption of " + Read(path);
  }
};

Captioner Ref(CountingCaptioner& c) {
  return [&c](const std::string& path) { return c(path); };
}

TEST(CaptionFolderConcurrent, KeepsNImagesInFlightAndWritesEachOnceOnTheCallersThread) {
  test::TempDir d;
  for (int i = 0; i < 12; ++i) Write(d / ("img" + std::to_string(i) + ".png"), "pixels " + std::to_string(i));
  CountingCaptioner c;
  c.hold = 4;
  CaptionFolderOptions o;
  o.out_path = d / "captions.jsonl";
  o.concurrency = 4;
  const auto caller = std::this_thread::get_id();
  int callbacks_elsewhere = 0, started = 0;
  CaptionFolderCallbacks cb;
  cb.on_start = [&](const CaptionFolderProgress&) { started += std::this_thread::get_id() == caller ? 1 : 0; };
  cb.on_captioned = [&](const CaptionRecord&, const CaptionFolderProgress& p) {
    if (std::this_thread::get_id() != caller) ++callbacks_elsewhere;
    EXPECT_LE(p.done, p.total);
  };
  const auto t0 = std::chrono::steady_clock::now();
  const CaptionFolderSummary s = CaptionFolder(d.path(), o, Ref(c), cb);
  EXPECT_EQ(s.captioned, 12);
  EXPECT_EQ(c.max_in_flight, 4);
  EXPECT_EQ(callbacks_elsewhere, 0);
  EXPECT_EQ(started, 12);
  // Three rounds of four that meet at once: far below one 2 s wait per image.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 4.0);
  const auto rows = Rows(o.out_path);
  ASSERT_EQ(rows.size(), 12u);
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(rows.at("img" + std::to_string(i) + ".png"), "caption of pixels " + std::to_string(i));
  for (const auto& [name, n] : c.calls) EXPECT_EQ(n, 1) << name;

  // Control: concurrency 1 never has two in flight.
  CountingCaptioner one;
  CaptionFolderOptions o1 = o;
  o1.out_path = d / "one.jsonl";
  o1.concurrency = 1;
  EXPECT_EQ(CaptionFolder(d.path(), o1, Ref(one)).captioned, 12);
  EXPECT_EQ(one.max_in_flight, 1);
}

TEST(CaptionFolderConcurrent, FailuresAreSkippedAndCaptionedOnTheNextRun) {
  test::TempDir d;
  for (int i = 0; i < 9; ++i) Write(d / ("img" + std::to_string(i) + ".png"), "pixels " + std::to_string(i));
  CountingCaptioner c;
  c.fail = {"img2.png", "img7.png"};
  CaptionFolderOptions o;
  o.out_path = d / "captions.jsonl";
  o.concurrency = 3;
  std::vector<std::string> failed;
  CaptionFolderCallbacks cb;
  cb.on_failed = [&](const std::string& file, const std::string& error) {
    failed.push_back(file);
    EXPECT_EQ(error.find('\n'), std::string::npos);
    EXPECT_NE(error.find("the server said no"), std::string::npos) << error;
  };
  CaptionFolderSummary s = CaptionFolder(d.path(), o, Ref(c), cb);
  EXPECT_EQ(s.captioned, 7);
  EXPECT_EQ(s.failed, 2);
  EXPECT_EQ(std::set<std::string>(failed.begin(), failed.end()), (std::set<std::string>{"img2.png", "img7.png"}));
  EXPECT_EQ(Rows(o.out_path).size(), 7u);
  c.fail.clear();
  c.calls.clear();
  s = CaptionFolder(d.path(), o, Ref(c));
  EXPECT_EQ(s.captioned, 2);
  EXPECT_EQ(s.already_done, 7);
  EXPECT_EQ(c.calls, (std::map<std::string, int>{{"img2.png", 1}, {"img7.png", 1}}));
  EXPECT_EQ(Rows(o.out_path).size(), 9u);
}

TEST(CaptionFolderConcurrent, ACancelledRunWritesWhatWasInFlightAndTheRerunTheRest) {
  test::TempDir d;
  for (int i = 0; i < 20; ++i) Write(d / ("img" + std::to_string(i) + ".png"), "pixels " + std::to_string(i));
  std::atomic<bool> cancel{false};
  std::atomic<int> calls{0}, stop_at{6};
  // The 6th call asks to stop: the calls already started still finish and are written.
  auto captioner = [&](const std::string& path) {
    if (++calls == stop_at) cancel = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return "caption of " + Read(path);
  };
  CaptionFolderOptions o;
  o.out_path = d / "captions.jsonl";
  o.concurrency = 4;
  CaptionFolderCallbacks cb;
  cb.cancel = &cancel;
  CaptionFolderSummary s = CaptionFolder(d.path(), o, captioner, cb);
  EXPECT_TRUE(s.cancelled);
  EXPECT_EQ(s.captioned, calls.load()) << "every answer that came was written";
  EXPECT_LT(s.captioned, 20);
  EXPECT_EQ(Rows(o.out_path).size(), static_cast<size_t>(s.captioned));
  cancel = false;
  calls = 0;
  stop_at = -1;
  const int first = s.captioned;
  s = CaptionFolder(d.path(), o, captioner, cb);
  EXPECT_FALSE(s.cancelled);
  EXPECT_EQ(s.already_done, first);
  EXPECT_EQ(s.captioned, 20 - first);
  EXPECT_EQ(Rows(o.out_path).size(), 20u);
}

TEST(CaptionFolderConcurrent, IdenticalImagesGetTheirSidecarsFromOneCaption) {
  test::TempDir d;
  Write(d / "a.png", "same");
  Write(d / "b.png", "same");
  Write(d / "c.png", "other");
  CountingCaptioner c;
  CaptionFolderOptions o;
  o.sidecar = SidecarOptions{};
  o.concurrency = 3;
  const CaptionFolderSummary s = CaptionFolder(d.path(), o, Ref(c));
  EXPECT_EQ(s.sidecars_written, 3);
  EXPECT_EQ(Read(d / "a.txt"), "caption of same");
  EXPECT_EQ(Read(d / "b.txt"), "caption of same");
  EXPECT_EQ(Read(d / "c.txt"), "caption of other");
  EXPECT_EQ(c.calls.size(), 2u) << "identical images are captioned once";
}

}  // namespace
}  // namespace glance
