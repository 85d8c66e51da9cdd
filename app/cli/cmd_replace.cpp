// glance-cli replace DIR --find TEXT --with TEXT [--regex] [--ignore-case] [--sidecar-ext .txt]
//   [--recursive] [--apply] | replace DIR --undo
// Find and replace across a folder's caption sidecars (core/engine/caption_replace.h): without
// --apply it only shows every change; --apply makes them all, and --undo takes the last one back.
#include <cstdio>

#include "app/cli/arg_parser.h"
#include "app/cli/command.h"
#include "core/engine/caption_replace.h"

namespace glance::cli {
namespace {

// One line of a caption for the preview: line breaks shown, long texts cut.
std::string Shown(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '\n' ? std::string("\\n") : std::string(1, c);
  if (out.size() > 160) out = out.substr(0, 157) + "...";
  return out;
}

void PrintSkipped(const std::vector<std::string>& skipped) {
  for (const std::string& s : skipped) std::fprintf(stderr, "skipped: %s\n", s.c_str());
}

int Replace(const Args& args) {
  ArgParser p(args, {"find", "with", "sidecar-ext"}, {"regex", "ignore-case", "recursive", "apply", "undo"});
  if (p.positional().size() != 1) throw Error("replace takes one folder (usage: replace DIR --find TEXT --with TEXT)");
  const std::string dir = p.positional()[0];
  if (p.Has("undo")) {
    for (const char* f : {"find", "with", "regex", "ignore-case", "apply"})
      if (p.Has(f)) throw Error(std::string("--undo takes back the last replace; --") + f + " does not go with it");
    const ReplaceOutcome out = UndoReplace(dir);
    std::printf("undone: %d file%s restored\n", out.changed, out.changed == 1 ? "" : "s");
    PrintSkipped(out.skipped);
    return out.skipped.empty() ? 0 : 1;
  }
  if (!p.Has("find")) throw Error("--find TEXT is required (what to replace)");
  if (!p.Has("with")) throw Error("--with TEXT is required (what to put instead; --with '' deletes)");
  const ReplaceQuery query{p.Get("find", ""), p.Get("with", ""), p.Has("regex"), p.Has("ignore-case")};
  const std::vector<std::string> sidecars = FindSidecars(dir, p.Get("sidecar-ext", ".txt"), p.Has("recursive"));
  std::vector<std::string> unreadable;
  const std::vector<CaptionEdit> edits = PlanReplace(sidecars, query, &unreadable);
  int matches = 0;
  for (const CaptionEdit& e : edits) {
    matches += e.matches;
    std::printf("%s: %d match%s\n  - %s\n  + %s\n", e.path.c_str(), e.matches, e.matches == 1 ? "" : "es",
                Shown(e.before).c_str(), Shown(e.after).c_str());
  }
  PrintSkipped(unreadable);
  std::printf("%d match%s in %zu of %zu caption files", matches, matches == 1 ? "" : "es", edits.size(), sidecars.size());
  if (!p.Has("apply")) {
    std::printf(" (a preview: nothing changed; --apply makes the changes)\n");
    return 0;
  }
  std::printf("\n");
  if (edits.empty()) return 0;
  const ReplaceOutcome out = ApplyReplace(dir, edits);
  std::printf("applied: %d file%s changed; glance-cli replace %s --undo takes it back\n", out.changed,
              out.changed == 1 ? "" : "s", dir.c_str());
  PrintSkipped(out.skipped);
  return out.skipped.empty() && unreadable.empty() ? 0 : 1;
}

Register reg("replace",
             "replace DIR --find TEXT --with TEXT [--regex] [--ignore-case] [--sidecar-ext .txt] [--recursive] [--apply]\n"
             "      replace DIR --undo\n"
             "        Find and replace in the caption sidecars of DIR's images (photo.jpg -> photo.txt). Without\n"
             "        --apply it shows each change and changes nothing. --regex: --find is a PCRE2 regular\n"
             "        expression and $1 in --with names its first group. Each file is rewritten whole; --undo puts\n"
             "        back every file the last --apply changed (a file edited since is left and named).",
             "find and replace across a folder's caption files, with a preview and an undo", Replace);

}  // namespace
}  // namespace glance::cli
