#include "app/cli/caption_progress.h"

#include <cmath>
#include <cstdio>

namespace glance::cli {

std::string FormatDuration(double seconds) {
  if (!(seconds >= 0) || seconds > 1e7) return "?";
  const long long s = std::llround(seconds);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
  return buf;
}

void CaptionProgress::Draw(const CaptionFolderProgress& p) {
  constexpr int kWidth = 24;
  const int filled = p.total > 0 ? p.done * kWidth / p.total : kWidth;
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(kWidth, '.');
  std::string name = p.file;
  if (name.size() > 30) name = "…" + name.substr(name.size() - 29);
  // \r + erase-line redraws in place.
  std::fprintf(stderr, "\r\033[K[%s] %d/%d %3d%%  ETA %s  %s", bar.c_str(), p.done, p.total,
               p.total > 0 ? p.done * 100 / p.total : 100, p.eta_s ? FormatDuration(*p.eta_s).c_str() : "--:--",
               name.c_str());
  std::fflush(stderr);
  bar_shown_ = true;
}

void CaptionProgress::Start(const CaptionFolderProgress& p) {
  if (terminal_) Draw(p);
}

void CaptionProgress::Captioned(const CaptionRecord& rec, const CaptionFolderProgress& p) {
  if (terminal_) {
    Draw(p);
    return;
  }
  std::fprintf(stderr, "%d/%d %s (%.1f s, ETA %s)\n", p.done, p.total, rec.file.c_str(), rec.seconds,
               p.eta_s ? FormatDuration(*p.eta_s).c_str() : "?");
}

void CaptionProgress::Note(const std::string& line) {
  if (terminal_ && bar_shown_) std::fprintf(stderr, "\r\033[K");
  std::fprintf(stderr, "%s\n", line.c_str());
  bar_shown_ = false;
}

void CaptionProgress::Finish() {
  if (terminal_ && bar_shown_) std::fprintf(stderr, "\n");
  bar_shown_ = false;
}

}  // namespace glance::cli
