#include "core/engine/sidecar_manifest.h"

#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/engine/caption_folder.h"
#include "core/util/append_file.h"
#include "core/util/file_lock.h"
#include "core/util/read_file.h"

namespace glance {

namespace fs = std::filesystem;

SidecarManifest::SidecarManifest(const std::string& dir) : path_((fs::path(dir) / kSidecarManifestName).string()) {
  std::error_code ec;
  if (!fs::exists(path_, ec)) return;
  // Read, and a torn tail set aside, only between appends: the folder view reads the record
  // while a caption run appends to it, and a record half written is not a torn tail.
  std::string record;
  {
    const FileLock turn(path_);
    if (!turn.locked()) return;  // removed since
    notice_ = SetAsideTornTail(path_, CaptionFormat::kJsonl);
    record = ReadWholeFile(path_, path_ + ": cannot read Glance's record of its sidecars");
  }
  std::istringstream lines(record);
  std::string line;
  while (std::getline(lines, line)) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) continue;
    const auto sidecar = j.find("sidecar");
    const auto text = j.find("text_sha256");
    if (sidecar == j.end() || !sidecar->is_string() || text == j.end() || !text->is_string()) continue;
    if (j.value("edited", false)) continue;  // the user's text, not Glance's (RecordEdit)
    written_[sidecar->get<std::string>()].insert(text->get<std::string>());
    const auto str = [&](const char* key) {
      const auto v = j.find(key);
      return v != j.end() && v->is_string() ? v->get<std::string>() : std::string();
    };
    if (!str("out").empty())
      into_out_[sidecar->get<std::string>()].push_back({str("image_sha256"), str("text_sha256"), str("out"), str("caption")});
  }
}

std::optional<std::string> SidecarManifest::CaptionWrittenInto(const std::string& sidecar,
                                                               const std::string& image_sha256,
                                                               const std::string& text_sha256,
                                                               const std::string& out) const {
  const auto it = into_out_.find(sidecar);
  if (it == into_out_.end()) return std::nullopt;
  for (auto r = it->second.rbegin(); r != it->second.rend(); ++r)
    if (r->image_sha256 == image_sha256 && r->text_sha256 == text_sha256 && r->out == out) return r->caption;
  return std::nullopt;
}

bool SidecarManifest::Wrote(const std::string& sidecar, const std::string& text_sha256) const {
  const auto it = written_.find(sidecar);
  return it != written_.end() && it->second.count(text_sha256) > 0;
}

void SidecarManifest::Record(const std::string& sidecar, const std::string& image, const std::string& image_sha256,
                             const std::string& text_sha256, const std::string& out, const std::string& caption) {
  nlohmann::ordered_json j{
      {"sidecar", sidecar}, {"image", image}, {"image_sha256", image_sha256}, {"text_sha256", text_sha256}};
  if (!out.empty()) {
    j["out"] = out;
    j["caption"] = caption;
  }
  Append(j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + '\n');
  written_[sidecar].insert(text_sha256);
  if (!out.empty()) into_out_[sidecar].push_back({image_sha256, text_sha256, out, caption});
}

void SidecarManifest::RecordEdit(const std::string& sidecar, const std::string& image,
                                 const std::string& text_sha256) {
  const nlohmann::ordered_json j{{"sidecar", sidecar}, {"image", image}, {"text_sha256", text_sha256}, {"edited", true}};
  Append(j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + '\n');
}

void SidecarManifest::Append(const std::string& line) {
  { AppendFile create(path_); }  // the lock needs a file to lock
  const FileLock turn(path_);
  // Opened under the lock: AppendFile checks the file grew by exactly this line from the length
  // it saw on opening, which another appender must not change in between.
  AppendFile(path_).Append(line);
}

}  // namespace glance
