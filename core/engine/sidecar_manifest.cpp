#include "core/engine/sidecar_manifest.h"

#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/engine/caption_folder.h"
#include "core/util/append_file.h"
#include "core/util/read_file.h"

namespace glance {

namespace fs = std::filesystem;

SidecarManifest::SidecarManifest(const std::string& dir) : path_((fs::path(dir) / kSidecarManifestName).string()) {
  std::error_code ec;
  if (!fs::exists(path_, ec)) return;
  notice_ = SetAsideTornTail(path_, CaptionFormat::kJsonl);
  std::istringstream lines(ReadWholeFile(path_, path_ + ": cannot read Glance's record of its sidecars"));
  std::string line;
  while (std::getline(lines, line)) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) continue;
    const auto sidecar = j.find("sidecar");
    const auto text = j.find("text_sha256");
    if (sidecar != j.end() && sidecar->is_string() && text != j.end() && text->is_string())
      written_[sidecar->get<std::string>()].insert(text->get<std::string>());
  }
}

bool SidecarManifest::Wrote(const std::string& sidecar, const std::string& text_sha256) const {
  const auto it = written_.find(sidecar);
  return it != written_.end() && it->second.count(text_sha256) > 0;
}

void SidecarManifest::Record(const std::string& sidecar, const std::string& image, const std::string& image_sha256,
                             const std::string& text_sha256) {
  AppendFile(path_).Append(nlohmann::ordered_json{{"sidecar", sidecar},
                                                  {"image", image},
                                                  {"image_sha256", image_sha256},
                                                  {"text_sha256", text_sha256}}
                               .dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
                           '\n');
  written_[sidecar].insert(text_sha256);
}

}  // namespace glance
