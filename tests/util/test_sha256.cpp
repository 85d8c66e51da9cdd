#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include "core/util/error.h"
#include "core/util/sha256.h"
#include "tests/model/temp_dir.h"

using glance::Sha256File;
using glance::Sha256Hex;

TEST(Sha256, KnownVectors) {  // FIPS 180-4 examples
  EXPECT_EQ(Sha256Hex("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const std::string two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  EXPECT_EQ(Sha256Hex(two.data(), two.size()), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const std::string million(1000000, 'a');
  EXPECT_EQ(Sha256Hex(million.data(), million.size()), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, OneBitChangesTheDigest) {
  EXPECT_NE(Sha256Hex("abc", 3), Sha256Hex("abd", 3));
}

// A file is hashed as its bytes are; anything but a regular file is refused at once. Run on
// another thread with a deadline, because the failure this guards against is a hang (a FIFO's
// open waits for a writer).
TEST(Sha256, FileIsHashedAndAFifoOrDeviceIsRefusedNotWaitedOn) {
  glance::test::TempDir d;
  const std::string file = d / "photo.png";
  std::ofstream(file, std::ios::binary) << "abc";
  EXPECT_EQ(Sha256File(file), Sha256Hex("abc", 3));  // control

  const std::string fifo = d / "fifo.png";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string zero = d / "zero.png";
  std::filesystem::create_symlink("/dev/zero", zero);
  for (const std::string& path : {fifo, zero, d.path()}) {
    auto result = std::async(std::launch::async, [path]() -> std::string {
      try {
        Sha256File(path);
        return "hashed";
      } catch (const glance::Error& e) {
        return e.what();
      }
    });
    ASSERT_EQ(result.wait_for(std::chrono::seconds(5)), std::future_status::ready) << path << " blocked";
    const std::string what = result.get();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find("not a regular file"), std::string::npos) << what;
  }
  EXPECT_THROW(Sha256File(d / "missing.png"), glance::Error);
}
