#include "core/util/read_file.h"

#include <fstream>
#include <sstream>

#include "core/util/error.h"

namespace glance {

std::string ReadWholeFile(const std::string& path, const std::string& cannot_open) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(cannot_open);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error(path + ": read error");
  return ss.str();
}

}  // namespace glance
