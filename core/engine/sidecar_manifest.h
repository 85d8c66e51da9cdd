#pragma once
// What Glance wrote into the caption sidecars of one folder (issue 33), so that a sidecar edited
// by hand since, or never written by Glance, is told apart and left alone unless the user says
// otherwise. One hidden file per folder, ".glance-sidecars.jsonl", one JSON object a line:
//   {"sidecar":"photo.txt","image":"photo.jpg","image_sha256":"<64 hex>","text_sha256":"<64 hex>"}
// appended (core/util/append_file.h: whole, synced) before each sidecar is renamed into place;
// a run that also writes an output file adds "out" (its absolute path) and "caption", so that a
// run killed after the sidecar and before the output row is completed from here on resume
// (caption_folder.h), not captioned and appended a second time.
// A sidecar is Glance's when the sha256 of its bytes is one recorded for that sidecar name. A
// record whose write never happened (killed between the two steps) names text that is nowhere,
// so it changes nothing: the sidecar still holds the earlier text, which has its own record.
// A caption the user saved in the desktop app's folder view (ui/folder_view.h) is recorded with
// "edited":true and no image sha256: it tells when and what was edited by hand, and is never
// counted as Glance's text (Wrote), so a later caption run leaves it alone unless told otherwise.
// The file lives with the images: moving or copying the folder keeps it.
//
// Thread contract: one owner. Several owners of one folder's record (the folder view reading it
// while a run on the engine thread appends) take turns through a lock on the file: a reader never
// takes a record still being appended for a torn tail.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace glance {

inline constexpr char kSidecarManifestName[] = ".glance-sidecars.jsonl";

class SidecarManifest {
 public:
  // Reads `dir`'s manifest (none yet: empty). A cut-off last line (a run killed mid-append) is set
  // aside first (caption_folder.h SetAsideTornTail; notice() says so); a line that does not parse
  // is ignored. Throws glance::Error naming the manifest when it cannot be read.
  explicit SidecarManifest(const std::string& dir);

  // Whether Glance wrote exactly the text with this sha256 into `sidecar` (a name in the folder).
  bool Wrote(const std::string& sidecar, const std::string& text_sha256) const;

  // The caption of the latest record of `sidecar` with this image sha256, text sha256 and output
  // file: the text it holds was written by a run into `out` for this very image.
  std::optional<std::string> CaptionWrittenInto(const std::string& sidecar, const std::string& image_sha256,
                                                const std::string& text_sha256, const std::string& out) const;

  // Appends one record, on disk before it returns (`out` "" when the run writes no output file).
  // Throws glance::Error naming the manifest.
  void Record(const std::string& sidecar, const std::string& image, const std::string& image_sha256,
              const std::string& text_sha256, const std::string& out = "", const std::string& caption = "");

  // Appends an "edited by hand" record of `sidecar` now holding text with this sha256 (see above).
  // Throws glance::Error naming the manifest.
  void RecordEdit(const std::string& sidecar, const std::string& image, const std::string& text_sha256);

  const std::string& path() const { return path_; }
  // One line when a cut-off last record was set aside on opening; "" otherwise.
  const std::string& notice() const { return notice_; }

 private:
  // One line appended whole, holding the record's lock (core/util/file_lock.h) while it writes.
  void Append(const std::string& line);

  std::string path_;
  std::string notice_;
  std::map<std::string, std::set<std::string>> written_;  // sidecar name -> text sha256s
  struct IntoOut {
    std::string image_sha256, text_sha256, out, caption;
  };
  std::map<std::string, std::vector<IntoOut>> into_out_;  // sidecar name -> records with "out"
};

}  // namespace glance
