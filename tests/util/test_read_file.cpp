// ReadWholeFile (core/util/read_file.h), which reads every small text file of a model folder:
// a FIFO, a device, a folder or an absurdly large file is a one-line error naming the path,
// never a read that blocks, never ends, or fills memory.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "core/util/error.h"
#include "core/util/read_file.h"

namespace fs = std::filesystem;
using glance::Error;
using glance::ReadWholeFile;

namespace {

class ReadFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("glance-read-file-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string P(const char* name) const { return (dir_ / name).string(); }
  static std::string Message(const std::string& path) {
    try {
      ReadWholeFile(path, "cannot open " + path);
    } catch (const Error& e) {
      return e.what();
    }
    return "(read)";
  }
  fs::path dir_;
};

TEST_F(ReadFile, ARegularFileAndALinkToOneAreRead) {  // the negative control
  std::ofstream(P("config.json")) << R"({"a": 1})";
  fs::create_symlink(P("config.json"), P("link.json"));
  EXPECT_EQ(ReadWholeFile(P("config.json"), "x"), R"({"a": 1})");
  EXPECT_EQ(ReadWholeFile(P("link.json"), "x"), R"({"a": 1})");
  std::ofstream(P("empty.json")).flush();
  EXPECT_EQ(ReadWholeFile(P("empty.json"), "x"), "");
}

TEST_F(ReadFile, AFifoIsRefusedAtOnceInsteadOfBlocking) {
  ASSERT_EQ(::mkfifo(P("config.json").c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(Message(P("config.json")), P("config.json") + " is not a regular file");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

TEST_F(ReadFile, ADeviceAFolderAndAMissingFileAreOneLineErrors) {
  fs::create_symlink("/dev/zero", P("tokenizer.json"));  // would never end
  EXPECT_EQ(Message(P("tokenizer.json")), P("tokenizer.json") + " is not a regular file");
  fs::create_directory(P("chat_template.jinja"));
  EXPECT_EQ(Message(P("chat_template.jinja")), P("chat_template.jinja") + " is not a regular file");
  EXPECT_EQ(Message(P("missing.json")), "cannot open " + P("missing.json"));
}

TEST_F(ReadFile, AFileOverTheLimitIsRefusedBeforeItIsRead) {
  {
    std::ofstream f(P("huge.json"));
  }
  fs::resize_file(P("huge.json"), glance::kMaxWholeFileBytes + 1);  // sparse: no disk used
  const std::string m = Message(P("huge.json"));
  EXPECT_EQ(m.rfind(P("huge.json") + " is 1024 MiB, larger than", 0), 0u) << m;
  fs::resize_file(P("huge.json"), 16);  // at the limit's other side it reads
  EXPECT_EQ(ReadWholeFile(P("huge.json"), "x").size(), 16u);
}

}  // namespace
