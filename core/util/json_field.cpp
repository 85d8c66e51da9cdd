#include "core/util/json_field.h"

#include "core/util/read_file.h"

namespace glance {

nlohmann::json ReadJsonFile(const std::string& path, const std::string& cannot_open) {
  const std::string text = ReadWholeFile(path, cannot_open);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + " is not valid JSON: " + e.what());
  }
}

}  // namespace glance
