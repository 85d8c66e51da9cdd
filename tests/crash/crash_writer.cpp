// The writer the crash tests run as a child process, under io_fault_shim (issue 35):
//   crash_writer caption DIR OUT   glance's CaptionFolder over DIR into OUT (.jsonl or .csv),
//                                  with a fake captioner (fake_caption.h) instead of a model
// Prints CaptionFolder's recovery notice and any error as one line on stderr; exit 0 or 1.
#include <cstdio>
#include <string>

#include "core/engine/caption_folder.h"
#include "core/util/error.h"
#include "tests/crash/fake_caption.h"

int main(int argc, char** argv) {
  if (argc != 4 || std::string(argv[1]) != "caption") {
    std::fprintf(stderr, "usage: crash_writer caption DIR OUT\n");
    return 2;
  }
  try {
    const std::string dir = argv[2];
    const glance::CaptionFolderSummary s = glance::CaptionFolder(
        dir, argv[3], [&](const std::string& path) { return glance::test::FakeCaption(path.substr(dir.size() + 1)); });
    if (!s.recovered.empty()) std::fprintf(stderr, "note: %s\n", s.recovered.c_str());
    return 0;
  } catch (const glance::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
