#include "core/util/json_field.h"

#include <string>

#include "core/util/read_file.h"

namespace glance {

nlohmann::json ReadJsonFile(const std::string& path, const std::string& cannot_open) {
  const std::string text = ReadWholeFile(path, cannot_open);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // nlohmann's what() starts with its own tag ("[json.exception.parse_error.101] "): the user
    // needs where and what, not the library's error id.
    std::string what = e.what();
    if (what.rfind("[json.exception.", 0) == 0 && what.find("] ") != std::string::npos)
      what = what.substr(what.find("] ") + 2);
    throw Error(path + " is not valid JSON: " + what);
  }
}

}  // namespace glance
