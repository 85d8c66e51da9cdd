#pragma once
// How `glance-cli caption DIR --out FILE` shows its progress on stderr: a bar that redraws in
// place with an ETA when stderr is a terminal, one plain line per image otherwise (logs, CI).
#include <string>

#include "core/engine/caption_folder.h"

namespace glance::cli {

class CaptionProgress {
 public:
  explicit CaptionProgress(bool terminal) : terminal_(terminal) {}
  void Start(const CaptionFolderProgress& p);
  void Captioned(const CaptionRecord& rec, const CaptionFolderProgress& p);
  // Messages that must stay visible (bad files, duplicates): printed above the bar.
  void Note(const std::string& line);
  void Finish();

 private:
  void Draw(const CaptionFolderProgress& p);
  bool terminal_;
  bool bar_shown_ = false;
};

// "1:05", "12:03:09"; "?" for a negative or absurd value.
std::string FormatDuration(double seconds);

}  // namespace glance::cli
