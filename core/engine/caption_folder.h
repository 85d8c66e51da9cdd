#pragma once
// Captioning every image of a folder into one file (glance-cli caption DIR --out FILE; the GUI's
// "Caption a folder…" can call the same function from its worker).
//
// The output is the resume state: a .jsonl file (one {"file","sha256","caption"} object a line)
// or a .csv file (header file,sha256,caption; RFC 4180 quoting). Images whose sha256 is already
// in it are skipped, so an interrupted run continues where it stopped and a renamed image is
// not captioned twice. Each caption is appended whole and synced to disk as soon as it exists
// (core/util/append_file.h); an unfinished last record left by a crash is set aside first. A file that
// cannot be read or decoded is reported through the callbacks and skipped, never fatal, and is
// tried again on the next run (it has no row).
//
// The model is behind `Captioner`, so this file knows nothing of sessions and tests can run it
// with a fake.
//
// Sidecars (issue 33, caption_sidecar.h): with CaptionFolderOptions::sidecar, each image's caption
// also goes to a file next to it (photo.jpg -> photo.txt), with or without the output file, and
// `recursive` takes the images of subfolders too. Resume in sidecar mode: in skip mode an image
// with a sidecar is done; with an output file, an image whose name and sha256 are already in it
// is done in every mode (its sidecar was written before its row), so an interrupted overwrite,
// append or prepend run continues where it stopped, and an image whose sidecar a run into this
// file wrote but whose row it did not (stopped in between) gets its row from the folder's record
// (sidecar_manifest.h), neither captioned nor appended again; without an output file, those modes
// act on every image each run. Identical images each get their sidecar (the caption of the first is reused, not
// computed again).
//
// Several images at once (CaptionFolderOptions::concurrency, for a remote server that answers
// several requests in parallel): the captioner runs on that many worker threads, while every
// write (row, sidecar) and every callback stays on the caller's thread, one at a time, so the
// guarantees above hold unchanged; rows come in the order answers arrive.
//
// Thread contract: runs on the caller's thread; the callbacks are called on it. The captioner
// is called on it too, or with concurrency N > 1 on N threads of its own, up to N at once.
// `cancel` may be set from any thread: no image is started after it; with concurrency, the
// answers already coming are still written.
#include <atomic>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/engine/caption_sidecar.h"
#include "core/engine/image_files.h"  // ListImageFiles, ListImageFilesRecursive

namespace glance {

enum class CaptionFormat { kJsonl, kCsv };

// By the output file's extension (.jsonl / .csv); throws glance::Error naming the file otherwise.
CaptionFormat CaptionFormatForPath(const std::string& out_path);

// The sha256 column of an existing output file (empty set when it does not exist yet). A line
// that does not parse (say, half-written when the last run was killed) is skipped.
std::set<std::string> ReadCaptionedHashes(const std::string& out_path, CaptionFormat format);
// The (file, sha256) pairs of its rows, the same way.
std::set<std::pair<std::string, std::string>> ReadCaptionedFiles(const std::string& out_path, CaptionFormat format);

// Moves an unfinished last record of the output file (a run killed or a power cut mid-append) to
// OUT.torn and cuts it off, so new records never follow half a line (a half CSV quoted field
// would swallow them). Returns a one-line notice naming both files, or "" when the file ends
// whole (or does not exist). Throws glance::Error naming the file when it cannot do so.
std::string SetAsideTornTail(const std::string& out_path, CaptionFormat format);

// One CSV field, quoted when it holds a comma, quote or line break (RFC 4180).
std::string CsvField(const std::string& value);

struct CaptionRecord {
  std::string file;     // name within the folder (a relative path when recursive: "trip/b.jpg")
  std::string sha256;   // of the file's bytes
  std::string caption;
  double seconds = 0.0;  // time the captioner took
};

struct CaptionFolderProgress {
  int done = 0;         // images handled this run (captioned or failed)
  int total = 0;        // images to handle this run (already captioned ones excluded)
  std::string file;     // the image about to be captioned (on_start) or just finished
  double elapsed_s = 0.0;
  std::optional<double> eta_s;  // from the mean time per image so far; unset before the first
};

struct CaptionFolderCallbacks {
  std::function<void(const CaptionFolderProgress&)> on_start;  // before each image
  std::function<void(const CaptionRecord&, const CaptionFolderProgress&)> on_captioned;
  // A file that could not be hashed, decoded or captioned; `error` is one line.
  std::function<void(const std::string& file, const std::string& error)> on_failed;
  // A file skipped because an identical image (same sha256) was captioned earlier in this run.
  std::function<void(const std::string& file, const std::string& same_as)> on_duplicate;
  const std::atomic<bool>* cancel = nullptr;
};

struct CaptionFolderSummary {
  int images = 0;         // image files in the folder
  int already_done = 0;   // skipped: their sha256 was in the output file
  int duplicates = 0;     // skipped: same bytes as another image of this run
  int captioned = 0;
  int failed = 0;
  bool cancelled = false;
  // One line when the output file ended in a record cut short (a run killed mid-write): that
  // tail was moved to OUT.torn and its image captioned again. Empty otherwise.
  std::string recovered;
  // Sidecar mode:
  int sidecars_written = 0;
  int had_sidecar = 0;                       // skip mode: left alone, the image has one
  std::vector<std::string> protected_sidecars;  // edited by hand / not Glance's: left as they are
  std::vector<std::string> notices;          // one line each: leftovers removed, records set aside
};

// Returns the caption of the image at `path`; throws glance::Error for a bad image.
using Captioner = std::function<std::string(const std::string& path)>;

// Captions the images of `dir` not yet in `out_path` (created if missing). Throws glance::Error
// only for problems with the folder or the output file (not a folder, cannot write).
// `json_captions`: each caption is a JSON document (glance-cli caption --json-schema), written
// into a .jsonl line as JSON rather than as a string (a .csv keeps its text).
CaptionFolderSummary CaptionFolder(const std::string& dir, const std::string& out_path, const Captioner& captioner,
                                   const CaptionFolderCallbacks& callbacks = {}, bool json_captions = false);

struct CaptionFolderOptions {
  std::string out_path;                  // .jsonl / .csv; "" for none (then `sidecar` is required)
  bool json_captions = false;
  bool recursive = false;                // subfolders too (image_files.h ListImageFilesRecursive)
  std::optional<SidecarOptions> sidecar;  // a caption file next to each image
  // Only these images (names as listed: relative to the folder), when set: the folder view's
  // "caption the selected". Names that are not images of the folder are ignored.
  std::optional<std::set<std::string>> only;
  // Images captioned at once (1: one after another on the caller's thread); see above.
  int concurrency = 1;
};

// The same with sidecars and subfolders. Throws glance::Error when neither an output file nor
// sidecars are asked for; a sidecar that cannot be written fails that image only.
CaptionFolderSummary CaptionFolder(const std::string& dir, const CaptionFolderOptions& options,
                                   const Captioner& captioner, const CaptionFolderCallbacks& callbacks = {});

}  // namespace glance
