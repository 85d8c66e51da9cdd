// kernels/ is the bottom layer (docs/design.md "Layers"): no file under it may include a
// header from core/, ui/ or app/. Scans the source tree, so a new include fails here, not in
// a review. A negative control checks the scanner sees an offending line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// The upper-layer includes in `text`, one "line N: ..." entry each.
std::vector<std::string> UpperLayerIncludes(const std::string& text) {
  static const std::regex include(R"(^\s*#\s*include\s*[<"](core|ui|app)/[^>"]*[>"])");
  std::vector<std::string> hits;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (std::regex_search(line, include)) hits.push_back("line " + std::to_string(n) + ": " + line);
  return hits;
}

TEST(KernelLayering, ScannerSeesAnUpperLayerInclude) {
  EXPECT_EQ(UpperLayerIncludes("#include \"core/util/error.h\"\n").size(), 1u);
  EXPECT_EQ(UpperLayerIncludes("int x;\n  #  include <ui/main_window.h>\n").size(), 1u);
  EXPECT_TRUE(UpperLayerIncludes("#include \"kernels/kernel_error.h\"\n// core/util/error.h\n").empty());
}

TEST(KernelLayering, KernelsIncludeNothingFromUpperLayers) {
  const fs::path root = fs::path(GLANCE_SOURCE_DIR) / "kernels";
  ASSERT_TRUE(fs::is_directory(root)) << root;
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const std::string ext = entry.path().extension().string();
    if (ext != ".h" && ext != ".cpp" && ext != ".inc" && ext != ".cc") continue;
    std::ifstream f(entry.path());
    std::stringstream text;
    text << f.rdbuf();
    ++files;
    for (const std::string& hit : UpperLayerIncludes(text.str()))
      ADD_FAILURE() << fs::relative(entry.path(), GLANCE_SOURCE_DIR).string() << " " << hit;
  }
  EXPECT_GT(files, 20) << "scanned too few files: wrong source dir?";
}

}  // namespace
