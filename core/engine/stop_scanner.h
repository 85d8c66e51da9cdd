#pragma once
// Stop sequences over streamed text (OpenAI's `stop`; the desktop app's Settings and chat
// presets): text is released only once it cannot be the start of a stop sequence, and the
// answer ends before the first stop sequence found (which is not part of the answer, as in the
// OpenAI API). The one implementation: Session's generation applies GenerateOptions::stop with
// it, so the server and the desktop app end answers alike.
//
// Thread contract: a plain value, used by one thread at a time.
#include <string>
#include <string_view>
#include <vector>

namespace glance {

class StopScanner {
 public:
  // Empty strings are ignored (they would match everywhere).
  explicit StopScanner(std::vector<std::string> stops);
  // Adds generated text; returns the text that is now safe to show. After a stop sequence is
  // found, stopped() is true and later pushes return "".
  std::string Push(const std::string& piece);
  // The held-back tail at the end of generation ("" once stopped).
  std::string Flush();
  bool stopped() const { return stopped_; }
  // Bytes returned so far (by Push and Flush): once stopped, where the answer is cut.
  size_t released() const { return released_; }

 private:
  std::vector<std::string> stops_;
  std::string pending_;
  size_t released_ = 0;
  bool stopped_ = false;
};

// The desktop app's form of a list of stop sequences (Settings, chat presets): one a line, empty
// lines skipped, with the escapes \n (a line break), \t (a tab) and \\ (a backslash), so a
// sequence may hold a line break ("\n\n" stops at a blank line).
inline constexpr size_t kMaxStopSequences = 16;
inline constexpr size_t kMaxStopBytes = 256;
// Throws glance::Error with one line: "line N: ..." (an unknown escape, a sequence longer than
// kMaxStopBytes) or "more than 16 stop sequences".
std::vector<std::string> ParseStopLines(std::string_view text);
// The inverse: ParseStopLines(StopLines(s)) == s for every valid list.
std::string StopLines(const std::vector<std::string>& stops);
// Throws glance::Error with one line when `stops` is not a valid list (too many, too long, an
// empty one); "sequence N: ...".
void ValidateStopSequences(const std::vector<std::string>& stops);

}  // namespace glance
