#include "core/engine/image_files.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/util/error.h"

namespace glance {

namespace fs = std::filesystem;

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Appends the images of `dir` (whose path relative to the top is `rel`) to `out`; with `recurse`,
// those of its subfolders too.
void ListInto(const fs::path& dir, const fs::path& rel, bool recurse, std::vector<std::string>& out) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(dir.string() + ": not a folder");
  fs::directory_iterator it(dir, ec);
  if (ec) throw Error(dir.string() + ": cannot list the folder: " + ec.message());
  std::vector<fs::path> subfolders;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw Error(dir.string() + ": cannot list the folder: " + ec.message());
    std::error_code type_ec;
    const std::string name = it->path().filename().string();
    // Folders are not images; anything else by an image's name is listed, so that a FIFO, device
    // or dangling link is reported as failed (by the hash, which refuses it) rather than skipped
    // without a word.
    if (it->is_directory(type_ec)) {
      if (recurse && !it->is_symlink(type_ec) && name[0] != '.') subfolders.push_back(it->path());
      continue;
    }
    if (HasImageExtension(name)) out.push_back((rel / name).string());
  }
  for (const fs::path& sub : subfolders) ListInto(sub, rel / sub.filename(), recurse, out);
}

}  // namespace

bool HasImageExtension(const std::string& name) {
  static const std::set<std::string> kImageExtensions = {".png", ".jpg", ".jpeg", ".webp", ".bmp", ".tif", ".tiff"};
  return kImageExtensions.count(Lower(fs::path(name).extension().string())) > 0;
}

std::vector<std::string> ListImageFiles(const std::string& dir) {
  std::vector<std::string> names;
  ListInto(dir, {}, /*recurse=*/false, names);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> ListImageFilesRecursive(const std::string& dir) {
  std::vector<std::string> paths;
  ListInto(dir, {}, /*recurse=*/true, paths);
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace glance
