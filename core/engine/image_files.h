#pragma once
// Which files of a folder are images to caption (glance-cli caption DIR, the GUI's "Caption a
// folder…"): by extension, the formats Glance decodes (.png .jpg .jpeg .webp .bmp .tif .tiff, any
// case).
#include <string>
#include <vector>

namespace glance {

// True for a file name with one of the image extensions above.
bool HasImageExtension(const std::string& name);

// Entries directly in `dir`, other than folders, whose extension is an image format Glance
// decodes, by name; a FIFO or dangling link by such a name is listed too, so that captioning
// reports it. Throws glance::Error when `dir` is not a readable folder.
std::vector<std::string> ListImageFiles(const std::string& dir);

// The same through `dir` and its subfolders: paths relative to `dir` ("a.png", "trip/b.jpg"),
// sorted by path. Hidden folders (".git", ".thumbnails") are not entered, and neither is a
// symbolic link to a folder (so a link back up the tree cannot loop, and a folder linked in
// twice is not captioned twice). Throws glance::Error naming the folder that cannot be listed.
std::vector<std::string> ListImageFilesRecursive(const std::string& dir);

}  // namespace glance
