#include "core/engine/demo_scenes.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/util/error.h"

namespace fs = std::filesystem;

namespace glance {

std::string DefaultDemoScenesDir() {
  if (const char* env = std::getenv("GLANCE_DEMO_SCENES"); env && *env) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (const fs::path& c : {ec ? fs::path() : exe.parent_path() / "../share/glance/demo-scenes",
                            fs::path(GLANCE_INSTALL_DATADIR) / "demo-scenes"})
    if (!c.empty() && fs::exists(c / "scenes.json")) return c.string();
  return (fs::path(GLANCE_SOURCE_RESOURCES) / "demo-scenes").string();
}

namespace {
std::vector<std::string> Strings(const nlohmann::json& j, const char* key) {
  std::vector<std::string> out;
  for (const auto& v : j.at(key)) out.push_back(v.get<std::string>());
  return out;
}
}  // namespace

DemoScenes LoadDemoScenes(const std::string& dir) {
  const fs::path path = fs::path(dir) / "scenes.json";
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path.string() + " (the demo scenes are missing)");
  DemoScenes out;
  out.dir = dir;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    out.shapes = Strings(j, "shapes");
    out.colours = Strings(j, "colours");
    out.sizes = Strings(j, "sizes");
    out.positions = Strings(j, "positions");
    int index = 0;
    for (const auto& s : j.at("scenes")) {
      DemoScene d;
      d.index = index++;
      d.image_path = (fs::absolute(dir) / s.at("file").get<std::string>()).string();
      d.background = Strings(s, "background");
      for (const auto& o : s.at("objects"))
        d.objects.push_back({o.at("shape").get<std::string>(), o.at("colour").get<std::string>(),
                             o.at("size").get<std::string>(), o.at("cell").get<int>(),
                             o.at("position").get<std::string>(), o.at("token_cells").get<std::vector<int>>()});
      d.caption = s.at("caption").get<std::string>();
      for (const auto& q : s.at("questions"))
        d.questions.push_back({q.at("type").get<std::string>(), q.at("question").get<std::string>(),
                               q.at("answer").get<std::string>()});
      out.scenes.push_back(std::move(d));
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(path.string() + " is not a demo-scenes file: " + e.what());
  }
  if (out.scenes.empty()) throw Error(path.string() + " lists no scenes");
  return out;
}

const DemoScene& PickDemoScene(const DemoScenes& scenes, uint64_t seed) {
  return scenes.scenes.at(static_cast<size_t>(seed % scenes.scenes.size()));
}

}  // namespace glance
