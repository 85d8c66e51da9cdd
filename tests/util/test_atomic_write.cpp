// core/util/atomic_write.h (issue 35): AtomicFileWriter writes in pieces and names the file only
// on Commit; destroyed without Commit it leaves the old file and no temporary; a temporary another
// living writer holds is never removed as a leftover, a dead writer's is.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "core/util/atomic_write.h"
#include "core/util/error.h"

namespace glance {
namespace {

namespace fs = std::filesystem;

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int Leftovers(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += IsAtomicWriteLeftover(e.path().filename().string());
  return n;
}

struct Dir {
  fs::path path = fs::temp_directory_path() / ("glance_atomic_write_" + std::to_string(::getpid()));
  Dir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
};

TEST(AtomicFileWriter, WritesInPiecesAndNamesTheFileOnlyOnCommit) {
  Dir d;
  const fs::path file = d.path / "cache.bin";
  WriteFileAtomically(file.string(), "old");
  {
    AtomicFileWriter w(file.string());
    w.Write("abc");
    w.PadTo(10000);
    w.Write(std::string("xyz"));
    EXPECT_EQ(w.size(), 10003u);
    EXPECT_EQ(Read(file), "old");  // not yet
    EXPECT_EQ(Leftovers(d.path), 1);
    // A writer still at work: its temporary is not a leftover to remove.
    EXPECT_EQ(RemoveAtomicWriteLeftovers(d.path.string()), 0);
    w.Commit();
  }
  const std::string now = Read(file);
  ASSERT_EQ(now.size(), 10003u);
  EXPECT_EQ(now.substr(0, 3), "abc");
  EXPECT_EQ(now.substr(3, 9997), std::string(9997, '\0'));
  EXPECT_EQ(now.substr(10000), "xyz");
  EXPECT_EQ(Leftovers(d.path), 0);
}

TEST(AtomicFileWriter, DroppedWithoutCommitLeavesTheOldFileAndNoTemporary) {
  Dir d;
  const fs::path file = d.path / "record.json";
  WriteFileAtomically(file.string(), "old");
  {
    AtomicFileWriter w(file.string());
    w.Write("half of the new");
  }
  EXPECT_EQ(Read(file), "old");
  EXPECT_EQ(Leftovers(d.path), 0);
}

TEST(AtomicFileWriter, ALeftoverNoOneHoldsIsRemoved) {
  Dir d;
  std::ofstream(d.path / ".cache.bin.glance-tmp-Ab12Cd") << "a killed writer's";
  EXPECT_EQ(RemoveAtomicWriteLeftovers(d.path.string()), 1);
  EXPECT_EQ(Leftovers(d.path), 0);
}

// The folder view's reader cleans a folder's leftovers while the caption run writes sidecars
// there (a clean-clone CI run once lost an image's sidecar this way): a cleaner running beside a
// writer must never take the temporary it is writing, from its creation to its rename.
TEST(AtomicFileWriter, ACleanerBesideAWriterNeverTakesItsTemporary) {
  Dir d;
  std::atomic<bool> done{false};
  std::thread cleaner([&] {
    while (!done.load()) RemoveAtomicWriteLeftovers(d.path.string());
  });
  int failures = 0;
  std::string first;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
  int writes = 0;
  for (; std::chrono::steady_clock::now() < until; ++writes) {
    const std::string file = (d.path / ("sidecar-" + std::to_string(writes % 8) + ".txt")).string();
    try {
      WriteFileAtomically(file, "caption " + std::to_string(writes));
    } catch (const Error& e) {
      if (failures++ == 0) first = e.what();
    }
  }
  done.store(true);
  cleaner.join();
  EXPECT_EQ(failures, 0) << "of " << writes << " writes; the first: " << first;
  EXPECT_GT(writes, 50);
}

TEST(AtomicFileWriter, AFolderThatIsNotThereIsAnErrorNamingTheFile) {
  Dir d;
  const std::string file = (d.path / "missing" / "x.bin").string();
  try {
    AtomicFileWriter w(file);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace glance
