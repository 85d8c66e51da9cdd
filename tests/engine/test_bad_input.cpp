// Bad input through the public entry points (Engine, Session, glance-cli): each is a clear
// glance::Error or a non-zero exit with a message on stderr — never a crash.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
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
  const fs::path src = std::string(GLANCE_TEST_DATA "/tiny-a");
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

// A FIFO (or a folder) where a model file should be is named as what it is, and nothing blocks
// on it: config.json, tokenizer.json and the weights each in turn.
TEST(BadInput, AFifoInPlaceOfAModelFileIsNamedNotRead) {
  TempDir t;
  const fs::path dir = DemoCopy(t.path / "m", [](auto&) {});
  for (const char* name : {"tokenizer.json", "config.json", "model.safetensors"}) {
    const fs::path p = dir / name;
    const fs::path kept = dir / (std::string(name) + ".kept");
    fs::rename(p, kept);
    ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
    const auto t0 = std::chrono::steady_clock::now();
    try {
      Engine::Load(dir.string());
      ADD_FAILURE() << "loaded with " << name << " a FIFO";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(p.string() + " is not a regular file"), std::string::npos) << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10)) << name;
    fs::remove(p);
    fs::rename(kept, p);
  }
  EXPECT_NO_THROW(Engine::Load(dir.string()));  // control: the same folder, whole again
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

// Issue 12 item 2: the weights file truncated (or overwritten) in place while a model is loaded.
// The next turn must end in an error naming the file, not SIGBUS (exit 135) — with the weights
// as stored (f32) and quantized (q8: the embedding table is still read from the mapping).
TEST(BadInput, WeightsChangedOnDiskWhileLoadedRefuseTheNextTurn) {
  ::setenv("GLANCE_NO_WEIGHT_CACHE", "1", 1);
  for (const Precision precision : {Precision::kF32, Precision::kQ8}) {
    for (const bool truncate : {true, false}) {
      TempDir t;
      const fs::path dir = t.path / "model";
      fs::create_directories(dir);
      for (const auto& e : fs::directory_iterator(std::string(GLANCE_TEST_DATA "/tiny-a")))
        if (e.is_regular_file() && e.path().extension() != ".md") fs::copy_file(e.path(), dir / e.path().filename());
      EngineOptions o;
      o.threads = 1;
      o.backend = BackendKind::kCpu;
      o.precision = precision;
      const auto engine = Engine::Load(dir.string(), o);
      Session s(engine);
      GenerateOptions g;
      g.max_new_tokens = 2;
      g.enable_thinking = false;
      EXPECT_NO_THROW(s.Send("hello", g));
      const std::string weights = (dir / "model.safetensors").string();
      if (truncate) {
        ASSERT_EQ(::truncate(weights.c_str(), 4096), 0);
      } else {  // same size, other bytes, later modification time
        const auto size = fs::file_size(weights);
        { std::fstream f(weights, std::ios::in | std::ios::out | std::ios::binary);
          f.seekp(static_cast<std::streamoff>(size / 2));
          f.write("overwritten!", 12); }
        fs::last_write_time(weights, fs::last_write_time(weights) + std::chrono::seconds(3));
      }
      try {
        s.Send("and again", g);
        ADD_FAILURE() << "a turn ran on weights changed on disk";
      } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find(weights), std::string::npos) << msg;
        EXPECT_NE(msg.find(truncate ? "truncated" : "overwritten"), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
      }
    }
  }
}

// Issue 12 item 5: a config.json claiming far more layers than the weights hold is refused at
// load, naming the field, before anything is sized from it (2^30 layers used to take 8.7 GB).
TEST(BadInput, ConfigCountsBeyondTheWeightsAreRefusedAtLoad) {
  for (const int64_t layers : {int64_t{1} << 30, int64_t{1000}, int64_t{9}}) {
    TempDir t;
    const fs::path dir = t.path / "model";
    fs::create_directories(dir);
    for (const auto& e : fs::directory_iterator(std::string(GLANCE_TEST_DATA "/tiny-a")))
      if (e.is_regular_file()) fs::copy_file(e.path(), dir / e.path().filename());
    nlohmann::json cfg = nlohmann::json::parse(std::ifstream(dir / "config.json"));
    cfg["text_config"]["num_hidden_layers"] = layers;
    cfg["text_config"].erase("layer_types");
    std::ofstream(dir / "config.json") << cfg.dump();
    try {
      Engine::Load(dir.string());
      ADD_FAILURE() << layers << " layers loaded";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("num_hidden_layers"), std::string::npos) << e.what();
    }
    const CliResult r = RunCli("info " + dir.string());
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("num_hidden_layers"), std::string::npos) << r.output;
  }
}
