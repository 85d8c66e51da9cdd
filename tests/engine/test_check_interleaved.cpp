// The reference check on goldens whose user message interleaves text and images (issue 28):
// tests/data/tiny-a-interleaved (text, image, text) and tests/data/tiny-a-two-images (text,
// image, text, image), written by tools/twin/make_golden.py from tiny-a's weights. Every gate
// passes on them (this file and the ctests check_golden_tiny_a_interleaved / _two_images, which
// run the CLI). The negative control: the same golden with its message's parts put image-first —
// the order every golden had before, and the one a Session that flattened its parts would send —
// fails the gates that compare the prompt (ids and positions, prefill logits, the Session's ids),
// while the gates that do not depend on the order (tokenizer, template, pixels, vision) still pass.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/checks/reference_check.h"

namespace fs = std::filesystem;
using namespace glance::checks;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("glance-interleaved-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(reinterpret_cast<uintptr_t>(this)));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::map<std::string, GateResult> Check(const fs::path& dir) {
  CheckOptions o;
  o.threads = 2;
  std::map<std::string, GateResult> gates;
  for (GateResult& g : RunReferenceCheck(dir.string(), o).gates) gates[g.name] = std::move(g);
  return gates;
}

// A copy of `name` (symlinked model files copied as files) whose golden.json messages have every
// image part moved in front of the text parts, each kind keeping its order.
fs::path ImageFirstCopy(const std::string& name, const fs::path& dir) {
  const fs::path dst = dir / name;
  fs::copy(fs::path(GLANCE_TEST_DATA) / name, dst, fs::copy_options::recursive);  // follows symlinks
  nlohmann::json golden;
  std::ifstream(dst / "golden.json") >> golden;
  for (auto& m : golden["prompt"]["messages"]) {
    if (!m["content"].is_array()) continue;
    nlohmann::json images = nlohmann::json::array(), texts = nlohmann::json::array();
    for (const auto& p : m["content"]) (p["type"] == "image" ? images : texts).push_back(p);
    for (const auto& p : texts) images.push_back(p);
    m["content"] = images;
  }
  std::ofstream(dst / "golden.json") << golden.dump(1);
  return dst;
}

class InterleavedGolden : public testing::TestWithParam<const char*> {};

TEST_P(InterleavedGolden, EveryGatePasses) {
  const auto gates = Check(fs::path(GLANCE_TEST_DATA) / GetParam());
  EXPECT_EQ(gates.size(), 13u);  // the turn-2 and session gates included
  for (const auto& [name, g] : gates) EXPECT_TRUE(g.passed && !g.skipped) << name << ": " << g.figure;
}

TEST_P(InterleavedGolden, TheSameMessageImageFirstFailsThePromptGates) {
  TempDir t;
  const auto gates = Check(ImageFirstCopy(GetParam(), t.path));
  for (const char* order_free : {"tokenizer", "chat template", "pixel values", "vision embeddings"})
    EXPECT_TRUE(gates.at(order_free).passed) << order_free << ": " << gates.at(order_free).figure;
  for (const char* prompt_gate : {"M-RoPE positions", "prefill logits", "session prompt ids"})
    EXPECT_FALSE(gates.at(prompt_gate).passed) << prompt_gate << ": " << gates.at(prompt_gate).figure;
  EXPECT_NE(gates.at("session prompt ids").figure.find("first difference at row"), std::string::npos)
      << gates.at("session prompt ids").figure;
  EXPECT_NE(gates.at("M-RoPE positions").figure.find("ids differ"), std::string::npos)
      << gates.at("M-RoPE positions").figure;
}

// A golden whose prompt a Session cannot hold (here: history before the last user message) is
// reported, not a stop: the two session gates fail with a one-line reason naming the message,
// and every other gate still runs and reports (issue 28).
TEST(InterleavedGoldenShapes, APromptASessionCannotHoldFailsOnlyTheSessionGatesWithItsReason) {
  TempDir t;
  const fs::path dst = t.path / "with-history";
  fs::copy(fs::path(GLANCE_TEST_DATA) / "tiny-a-interleaved", dst, fs::copy_options::recursive);
  nlohmann::json golden;
  std::ifstream(dst / "golden.json") >> golden;
  auto& msgs = golden["prompt"]["messages"];
  msgs.insert(msgs.begin(), {{{"role", "user"}, {"content", "Hello."}}, {{"role", "assistant"}, {"content", "Hi."}}});
  std::ofstream(dst / "golden.json") << golden.dump(1);
  const auto gates = Check(dst);
  EXPECT_EQ(gates.size(), 13u);  // every gate reported
  for (const char* session_gate : {"session prompt ids", "session logits"}) {
    const GateResult& g = gates.at(session_gate);
    EXPECT_FALSE(g.passed) << session_gate;
    EXPECT_NE(g.figure.find("not one user message"), std::string::npos) << g.figure;
    EXPECT_EQ(g.figure.find('\n'), std::string::npos) << g.figure;  // one line
  }
  for (const char* order_free : {"tokenizer", "chat template", "pixel values", "vision embeddings"})
    EXPECT_TRUE(gates.at(order_free).passed) << order_free << ": " << gates.at(order_free).figure;
}

std::string CaseName(const testing::TestParamInfo<const char*>& p) {
  return std::string(p.param) == "tiny-a-interleaved" ? "TextImageText" : "TextImageTextImage";
}

INSTANTIATE_TEST_SUITE_P(TinyA, InterleavedGolden, testing::Values("tiny-a-interleaved", "tiny-a-two-images"),
                         CaseName);

}  // namespace
