#include "core/util/base64.h"

#include <gtest/gtest.h>

#include <string>

namespace glance {
namespace {

// RFC 4648 §10's test vectors: every padding case.
TEST(Base64, EncodesTheRfcTestVectors) {
  EXPECT_EQ(EncodeBase64(""), "");
  EXPECT_EQ(EncodeBase64("f"), "Zg==");
  EXPECT_EQ(EncodeBase64("fo"), "Zm8=");
  EXPECT_EQ(EncodeBase64("foo"), "Zm9v");
  EXPECT_EQ(EncodeBase64("foob"), "Zm9vYg==");
  EXPECT_EQ(EncodeBase64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(EncodeBase64("foobar"), "Zm9vYmFy");
}

TEST(Base64, EncodesEveryByteValue) {
  // The top and bottom of the alphabet and bytes above 127 (an image's bytes are unsigned).
  EXPECT_EQ(EncodeBase64(std::string("\xff\xfe\xfd", 3)), "//79");
  EXPECT_EQ(EncodeBase64(std::string("\0\0\0", 3)), "AAAA");
  EXPECT_EQ(EncodeBase64(std::string("\xfb\xef\xbe", 3)), "++++");
}

}  // namespace
}  // namespace glance
