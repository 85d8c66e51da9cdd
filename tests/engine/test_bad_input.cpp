// Bad input through the public entry points (Engine, Session, glance-cli): each is a clear
// glance::Error or a non-zero exit with a message on stderr — never a crash.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <opencv2/imgcodecs.hpp>

#include "core/engine/engine.h"
#include "core/engine/session.h"
#include "core/model/safetensors.h"
#include "core/model/safetensors_writer.h"
#include "core/util/error.h"

namespace fs = std::filesystem;
using namespace glance;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("glance-bad-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<uintptr_t>(this)));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

struct CliResult {
  int exit_code;
  std::string output;
};

CliResult RunCli(const std::string& args) {
  const std::string cmd = std::string(GLANCE_BINARY_DIR) + "/app/glance-cli " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

// A copy of the demo model whose weights file is rewritten by `edit`.
fs::path DemoCopy(const fs::path& dir, const std::function<void(std::vector<TensorBytes>&)>& edit) {
  const fs::path src = DefaultDemoModelDir();
  const fs::path dst = dir / "model";
  fs::create_directories(dst);
  for (const auto& e : fs::directory_iterator(src))
    if (e.path().filename() != "model.safetensors") fs::copy_file(e.path(), dst / e.path().filename());
  const auto store = TensorStore::OpenFolder(src.string());
  std::vector<TensorBytes> tensors;
  for (const auto& [name, v] : store.all())
    tensors.push_back({{name, v->dtype, v->shape}, std::vector<uint8_t>(v->data, v->data + v->nbytes)});
  edit(tensors);
  WriteSafetensorsFile((dst / "model.safetensors").string(), tensors);
  return dst;
}

}  // namespace

TEST(BadInput, ModelFolderProblemsNameWhatIsWrong) {
  TempDir t;
  EXPECT_THROW(Engine::Load((t.path / "nope").string()), Error);
  // Missing tensor.
  const fs::path missing = DemoCopy(t.path / "a", [](auto& ts) {
    ts.erase(std::remove_if(ts.begin(), ts.end(), [](const TensorBytes& b) {
      return b.spec.name == "model.language_model.layers.3.self_attn.k_proj.weight"; }), ts.end());
  });
  try {
    Engine::Load(missing.string());
    FAIL() << "loaded a model with a missing tensor";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("layers.3.self_attn.k_proj.weight"), std::string::npos) << e.what();
  }
  // Wrong shape: drop the last row of the vision merger's fc2 (shape [64,128] -> [63,128]).
  const fs::path wrong = DemoCopy(t.path / "b", [](auto& ts) {
    for (auto& b : ts)
      if (b.spec.name == "model.visual.merger.linear_fc2.weight") {
        b.spec.shape[0] -= 1;
        b.bytes.resize(b.spec.nbytes());
      }
  });
  try {
    Engine::Load(wrong.string());
    FAIL() << "loaded a model with a wrong shape";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("merger.linear_fc2.weight"), std::string::npos) << e.what();
  }
  // A folder without config.json.
  fs::remove(missing / "config.json");
  try {
    Engine::Load(missing.string());
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("config.json"), std::string::npos) << e.what();
  }
}

TEST(BadInput, CliRefusesBadImagesWithAMessage) {
  TempDir t;
  const std::string txt = (t.path / "notes.txt").string();
  std::ofstream(txt) << "hello";
  auto r = RunCli("caption " + txt + " --max-tokens 2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("not an image"), std::string::npos) << r.output;

  // A 1×1 image is upscaled by smart_resize (as HF does) and captioned.
  const std::string one = (t.path / "one.png").string();
  cv::imwrite(one, cv::Mat(1, 1, CV_8UC3, cv::Scalar(10, 20, 30)));
  r = RunCli("caption " + one + " --max-tokens 2");
  EXPECT_EQ(r.exit_code, 0) << r.output;

  // 30000×30000: refused from the header, naming the limit, without decoding it.
  const std::string huge = (t.path / "huge.png").string();
  {
    // A PNG signature + IHDR claiming 30000×30000 (the pixels are never needed to refuse it).
    const unsigned char png[] = {0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 'I', 'H', 'D', 'R',
                                 0, 0, 0x75, 0x30, 0, 0, 0x75, 0x30, 8, 2, 0, 0, 0, 0, 0, 0, 0};
    std::ofstream(huge, std::ios::binary).write(reinterpret_cast<const char*>(png), sizeof png);
  }
  r = RunCli("caption " + huge + " --max-tokens 2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("30000"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("megapixels"), std::string::npos) << r.output;  // names the limit

  r = RunCli("caption --mode sideways --max-tokens 2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--mode"), std::string::npos) << r.output;
  r = RunCli("caption --model " + (t.path / "nowhere").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("not a folder"), std::string::npos) << r.output;
  r = RunCli("frobnicate");
  EXPECT_EQ(r.exit_code, 2);
}

TEST(BadInput, CliCaptionsTheDemoAndPrintsJson) {
  const auto r = RunCli("caption --max-tokens 4 --json --thinking off");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"attention\""), std::string::npos);
  EXPECT_NE(r.output.find("\"decode_tokens_per_s\""), std::string::npos);
  EXPECT_NE(r.output.find("\"grid_w\": 7"), std::string::npos);
}

TEST(Cli, ChatReplRunsItsCommands) {
  const std::string script = std::string("printf 'Hello\\n/stats\\n/regenerate\\n/image /no/such.png\\n/image ") +
                             DefaultDemoImagePath() + "\\nWhat is it?\\n/reset\\n/quit\\n' | ";
  const std::string cmd = script + GLANCE_BINARY_DIR + "/app/glance-cli chat --max-tokens 3 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = ::pclose(p);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << out;
  EXPECT_NE(out.find("prompt tokens"), std::string::npos) << out;        // /stats
  EXPECT_NE(out.find("error:"), std::string::npos) << out;               // the missing image, reported
  EXPECT_NE(out.find("7x7 tokens"), std::string::npos) << out;           // the demo image attached
  EXPECT_NE(out.find("[new conversation]"), std::string::npos) << out;   // /reset
}
