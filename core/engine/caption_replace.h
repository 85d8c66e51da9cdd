#pragma once
// Find and replace across a folder's caption sidecars (issue 33 item 4; glance-cli replace): a
// preview of every change first, then all of them applied, and one undo for the whole replace.
//
// Plain text or a regular expression (PCRE2, UTF-8 with Unicode classes; "$1" in the
// replacement names a group, as pcre2_substitute reads it). Each sidecar is rewritten whole and
// atomically (core/util/atomic_write.h). Before any file changes, the replace writes its undo
// journal, DIR/.glance-replace-undo.json (each file's text before and after), also atomically;
// UndoReplace puts back the "before" text of every file that still holds the "after" text and
// names the others (edited since), so a replace killed half way is undone exactly too.
//
// Thread contract: none (the caller's thread; one replace per folder at a time).
#include <string>
#include <vector>

namespace glance {

struct ReplaceQuery {
  std::string find;
  std::string with;
  bool regex = false;
  bool ignore_case = false;
};

// `text` with every match of the query replaced; *count (if given) gets how many. Throws
// glance::Error naming --find for an empty search or a regular expression that does not compile
// (with PCRE2's message and offset), and naming --with for a replacement PCRE2 refuses.
std::string ReplaceInText(const std::string& text, const ReplaceQuery& query, int* count = nullptr);

struct CaptionEdit {
  std::string path;    // the sidecar
  std::string before;  // its text now
  std::string after;   // its text after the replace
  int matches = 0;
};

// The edits the query makes to `sidecars` (the files that change, in the given order). A file
// that cannot be read is skipped and named in *unreadable (one line each: path and why).
std::vector<CaptionEdit> PlanReplace(const std::vector<std::string>& sidecars, const ReplaceQuery& query,
                                     std::vector<std::string>* unreadable = nullptr);

// The sidecars of the images in `dir` (ListImageFiles / ListImageFilesRecursive, then
// SidecarPath with `ext`) that exist.
std::vector<std::string> FindSidecars(const std::string& dir, const std::string& ext, bool recursive);

struct ReplaceOutcome {
  int changed = 0;                   // files written
  std::vector<std::string> skipped;  // one line each: a file not as planned / not as replaced
};

// Writes the undo journal into `dir`, then each edit's file (only where it still holds `before`:
// a file changed since the preview is skipped and named). Throws glance::Error naming the
// journal when it cannot be written (then no file has changed).
ReplaceOutcome ApplyReplace(const std::string& dir, const std::vector<CaptionEdit>& edits);

// Undoes the last applied replace in `dir` (see above), then removes its journal. Throws
// glance::Error when there is no journal or it cannot be read.
ReplaceOutcome UndoReplace(const std::string& dir);

std::string UndoJournalPath(const std::string& dir);

}  // namespace glance
