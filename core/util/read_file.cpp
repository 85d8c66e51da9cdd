#include "core/util/read_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/util/error.h"

namespace glance {

std::string ReadWholeFile(const std::string& path, const std::string& cannot_open) {
  // A FIFO would block the read forever and a device (a link to /dev/zero) never ends: only a
  // regular file (a link to one is fine) is read, and only up to a size no such file reaches.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status)) {
    if (!std::filesystem::is_regular_file(status)) throw Error(path + " is not a regular file");
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxWholeFileBytes)
      throw Error(path + " is " + std::to_string(size >> 20) + " MiB, larger than the " +
                  std::to_string(kMaxWholeFileBytes >> 20) + " MiB such a file can be");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(cannot_open);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error(path + ": read error");
  return ss.str();
}

}  // namespace glance
