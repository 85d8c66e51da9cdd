#pragma once
// Caption sidecars (issue 33): `photo.jpg` -> `photo.txt` next to the image, the layout image-model
// trainers read (glance-cli caption DIR --sidecar; core/engine/caption_folder.h runs the folder).
//
// Each sidecar is written whole (core/util/atomic_write.h: temporary, fsync, rename, fsync of the
// folder) as UTF-8 without a byte-order mark or a final line break. What Glance wrote is recorded
// per folder (sidecar_manifest.h), so a sidecar whose text is not what Glance wrote there (edited
// by hand, or made by another tool) is "edited" and is never changed unless `replace_edited`.
//
// Modes (--existing), for an image whose sidecar exists:
//   skip       leave it (the default; an image with a sidecar is done, so a rerun resumes)
//   overwrite  replace its text by the new caption
//   append     existing text, separator, new caption
//   prepend    new caption, separator, existing text
// The separator joins two texts on one line (trainers read one line): a space when the first
// ends a sentence or already ends in punctuation (". ! ? , ; :"), else ", " (tags: "a, b").
// Prefix (--prefix, a trigger word): the sidecar starts with it, once: joined to what follows by
// ", " unless it ends in punctuation ("sks" -> "sks, a dog"; "photo of sks:" -> "photo of sks: a
// dog"); text that already starts with it (followed by a non-word character) is not prefixed
// again, and in prepend mode the existing text's copy of it is dropped.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace glance {

class SidecarManifest;

enum class SidecarExisting { kSkip, kOverwrite, kAppend, kPrepend };

// "skip", "overwrite", "append", "prepend"; throws glance::Error naming the word otherwise.
SidecarExisting ParseSidecarExisting(const std::string& word);

// Throws glance::Error saying why `ext` cannot be a sidecar extension: it must be a dot and at
// least one character ("." alone, "txt", ".a/b", ".a\\b" are refused), and not an image's own
// (".png" would overwrite photo.png) nor ".jsonl" (Glance's records).
void CheckSidecarExtension(const std::string& ext);

struct SidecarOptions {
  std::string ext = ".txt";
  SidecarExisting existing = SidecarExisting::kSkip;
  std::string prefix;
  bool replace_edited = false;  // also change sidecars edited by hand / not written by Glance
};

// `image` with its extension replaced by `ext`: "trip/photo.jpg" -> "trip/photo.txt".
std::string SidecarPath(const std::string& image, const std::string& ext);

// The text a sidecar gets: `existing` is its current text ("" when it has none).
std::string ComposeSidecarText(SidecarExisting mode, const std::string& existing, const std::string& caption,
                               const std::string& prefix);

enum class SidecarAction {
  kWrite,      // the sidecar is (to be) written
  kHasOne,     // skip mode: the image has a sidecar already
  kProtected,  // edited by hand or not Glance's, and replace_edited is off: left as it is
};

// What an image's sidecar is now (the desktop app's folder view shows it).
enum class SidecarState {
  kNone,    // no sidecar
  kGlance,  // its text is one Glance wrote there (a caption run)
  kEdited,  // edited by hand since, or not written by Glance: a run leaves it unless replace_edited
};

// The sidecars of one run over a folder (and its subfolders). Images are named relative to `dir`.
//
// Thread contract: one owner.
class SidecarWriter {
 public:
  // `out_path`: the run's output file, "" for none (recorded with each sidecar; see WrittenInto).
  SidecarWriter(std::string dir, SidecarOptions options, std::string out_path = "");
  ~SidecarWriter();

  // Resume with an output file: the caption, when `image`'s sidecar holds text that a run into
  // this output file wrote for this very image (its row was not written: the run was stopped in
  // between). The image is then done but for its row. Throws glance::Error as Plan does.
  std::optional<std::string> WrittenInto(const std::string& image, const std::string& image_sha256);

  // Before captioning: what this run will do with `image`'s sidecar (so a skipped or protected
  // image costs no model time). Throws glance::Error, for this image only, naming the sidecar
  // when it is a folder or not a regular file, when another image of this run has the same
  // sidecar (photo.jpg and photo.png -> photo.txt: the first by name keeps it), or when the
  // folder's record cannot be read.
  SidecarAction Plan(const std::string& image);

  // After captioning: looks at the sidecar again (it may have been edited meanwhile), composes its
  // text and writes it; kWrite when written, otherwise what Plan would say now. Throws
  // glance::Error naming the sidecar or the record when writing fails (the sidecar is as it was).
  SidecarAction Write(const std::string& image, const std::string& image_sha256, const std::string& caption);

  // What `image`'s sidecar is now; its text (without a change) into *text when given. Throws
  // glance::Error as Plan does (a folder, not a regular file, an unreadable record).
  SidecarState State(const std::string& image, std::string* text = nullptr);

  // The user's own caption for `image` (the folder view's editor): written whole and atomically as
  // Write does, after an "edited by hand" record (sidecar_manifest.h RecordEdit), so no run in a
  // mode but replace_edited changes it. The text is made valid UTF-8. Throws glance::Error naming
  // the sidecar or the record (then the sidecar is as it was).
  void WriteEdited(const std::string& image, const std::string& text);

  // `image`'s sidecar as the user names it: DIR/trip/photo.txt.
  std::string SidecarOf(const std::string& image) const;

  // One-line notices gathered so far (a cut-off record set aside, leftovers removed); cleared.
  std::vector<std::string> TakeNotices();

 private:
  struct Current;
  Current Inspect(const std::string& image);
  SidecarAction Decide(const Current& c) const;
  void Claim(const std::string& image);
  SidecarManifest& ManifestFor(const std::string& folder);

  std::string dir_;
  SidecarOptions options_;
  std::string out_;  // the output file's absolute path, or ""
  std::map<std::string, std::unique_ptr<SidecarManifest>> manifests_;  // by folder path
  std::map<std::string, std::string> claimed_;                         // sidecar -> image
  std::vector<std::string> notices_;
};

}  // namespace glance
