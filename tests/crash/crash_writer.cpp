// The writer the crash tests run as a child process, under io_fault_shim (issue 35):
//   crash_writer caption DIR OUT   glance's CaptionFolder over DIR into OUT (.jsonl or .csv),
//                                  with a fake captioner (fake_caption.h) instead of a model
//   crash_writer sidecar DIR MODE TAG [OUT]
//                                  the same into caption sidecars (issue 33), DIR and its
//                                  subfolders, --existing MODE; each caption is "TAG: " and the
//                                  fake caption of the image's path in DIR (and rows into OUT)
// Prints CaptionFolder's notices and any error as one line each on stderr, and for sidecars one
// "protected: PATH" line for each sidecar left alone and one "failed: FILE: ERROR" line for each
// image that failed; exit 0, or 1 on an error or a failed image.
#include <cstdio>
#include <string>

#include "core/engine/caption_folder.h"
#include "core/util/error.h"
#include "tests/crash/fake_caption.h"

namespace {

int Sidecars(const std::string& dir, const std::string& mode, const std::string& tag, const std::string& out) {
  glance::CaptionFolderOptions o;
  o.sidecar = glance::SidecarOptions{};
  o.sidecar->existing = glance::ParseSidecarExisting(mode);
  o.recursive = true;
  o.out_path = out;
  glance::CaptionFolderCallbacks cb;
  cb.on_failed = [](const std::string& file, const std::string& error) {
    std::fprintf(stderr, "failed: %s: %s\n", file.c_str(), error.c_str());
  };
  const glance::CaptionFolderSummary s = glance::CaptionFolder(
      dir, o, [&](const std::string& path) { return tag + ": " + glance::test::FakeCaption(path.substr(dir.size() + 1)); },
      cb);
  if (!s.recovered.empty()) std::fprintf(stderr, "note: %s\n", s.recovered.c_str());
  for (const std::string& n : s.notices) std::fprintf(stderr, "note: %s\n", n.c_str());
  for (const std::string& p : s.protected_sidecars) std::fprintf(stderr, "protected: %s\n", p.c_str());
  return s.failed > 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (!((what == "caption" && argc == 4) || (what == "sidecar" && (argc == 5 || argc == 6)))) {
    std::fprintf(stderr, "usage: crash_writer caption DIR OUT | crash_writer sidecar DIR MODE TAG [OUT]\n");
    return 2;
  }
  try {
    const std::string dir = argv[2];
    if (what == "sidecar") return Sidecars(dir, argv[3], argv[4], argc == 6 ? argv[5] : "");
    const glance::CaptionFolderSummary s = glance::CaptionFolder(
        dir, argv[3], [&](const std::string& path) { return glance::test::FakeCaption(path.substr(dir.size() + 1)); });
    if (!s.recovered.empty()) std::fprintf(stderr, "note: %s\n", s.recovered.c_str());
    return 0;
  } catch (const glance::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
