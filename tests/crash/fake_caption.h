#pragma once
// The caption the crash tests' writer gives an image, computed the same way by the checker: a
// comma, quotes and a line break, so a CSV row is a quoted field over two lines and a JSONL row
// escapes them.
#include <string>

namespace glance::test {

inline std::string FakeCaption(const std::string& file) {
  return "A test image named " + file + ", \"quoted\" here,\nand a second line of " + std::string(40, 'x') + ".";
}

}  // namespace glance::test
