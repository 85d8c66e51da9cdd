#pragma once
// OpenAI's `stop` sequences over streamed text: text is released only once it cannot be the
// start of a stop sequence, and the answer ends before the first stop sequence found (which is
// not part of the answer, as in the OpenAI API).
#include <string>
#include <vector>

namespace glance::server {

class StopScanner {
 public:
  explicit StopScanner(std::vector<std::string> stops) : stops_(std::move(stops)) {}
  // Adds generated text; returns the text that is now safe to show. After a stop sequence is
  // found, stopped() is true and later pushes return "".
  std::string Push(const std::string& piece);
  // The held-back tail at the end of generation.
  std::string Flush();
  bool stopped() const { return stopped_; }

 private:
  std::vector<std::string> stops_;
  std::string pending_;
  bool stopped_ = false;
};

}  // namespace glance::server
