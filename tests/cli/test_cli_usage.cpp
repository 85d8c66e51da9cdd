// glance-cli's front door (issues 10.12, 12.8, 12.9): per-command --help, info on the demo
// model, duplicated and single-dash flags refused with one line, chat with stdin closed,
// unknown /commands, and Ctrl+C stopping an answer without ending the chat.
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/engine/engine.h"
#include "tests/cli/cli_process.h"

namespace glance::test {
namespace {

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST(CliUsage, CommandHelpPrintsItsUsage) {
  for (const std::string flag : {"--help", "-h"}) {
    CliProcess p({"caption", flag});
    ASSERT_EQ(p.Wait(), 0) << flag << ": " << p.err;
    EXPECT_NE(p.out.find("usage: glance-cli caption"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("--out"), std::string::npos) << p.out;
  }
  // After other flags too, and for every command (the parser answers it).
  CliProcess chat({"chat", "--max-tokens", "3", "--help"});
  ASSERT_EQ(chat.Wait(), 0) << chat.err;
  EXPECT_NE(chat.out.find("usage: glance-cli chat"), std::string::npos);
  // Negative control: after `--`, -h is a file name, not a request for help.
  CliProcess file({"caption", "--", "-h"});
  EXPECT_EQ(file.Wait(), 1);
  EXPECT_EQ(file.out.find("usage:"), std::string::npos);
}

TEST(CliUsage, InfoWithoutAFolderDescribesTheDemoModel) {
  CliProcess p({"info", "--json"});
  ASSERT_EQ(p.Wait(), 0) << p.err;
  EXPECT_NE(p.out.find("demo-model"), std::string::npos) << p.out;
  EXPECT_NE(p.err.find("bundled demo model"), std::string::npos) << p.err;
}

// caption --json exports every generated token's maps with the model and image metadata: the
// full-attention softmax maps and the DeltaNet layers' hidden attention (issue 36);
// --no-attention leaves them out (control).
TEST(CliUsage, CaptionJsonExportsTheMapsOfEveryLayerKind) {
  CliProcess p({"caption", DefaultDemoImagePath(), "--json", "--max-tokens", "3"});
  ASSERT_EQ(p.Wait(), 0) << p.err;
  const nlohmann::json j = nlohmann::json::parse(p.out);
  EXPECT_TRUE(j.at("model").at("demo").get<bool>());
  EXPECT_EQ(j.at("image").at("grid_w").get<int>(), 7);
  const nlohmann::json& maps = j.at("attention");
  ASSERT_EQ(maps.size(), j.at("tokens").size());
  ASSERT_FALSE(maps.empty());
  const nlohmann::json& m = maps.at(0);
  EXPECT_EQ(m.at("layers").get<std::vector<int>>(), (std::vector<int>{3, 7}));
  EXPECT_EQ(m.at("linear_layers").get<std::vector<int>>(), (std::vector<int>{0, 1, 2, 4, 5, 6}));
  EXPECT_EQ(m.at("linear_weights").size(), 6u * static_cast<size_t>(m.at("linear_heads").get<int>()) * 49u);
  CliProcess off({"caption", DefaultDemoImagePath(), "--json", "--no-attention", "--max-tokens", "3"});
  ASSERT_EQ(off.Wait(), 0) << off.err;
  EXPECT_TRUE(nlohmann::json::parse(off.out).at("attention").empty());
}

// caption --attention-csv FILE writes the same maps as --json, one row per cell: the numbers are
// compared with the JSON output of the same run (issue 36 item 7).
TEST(CliUsage, CaptionAttentionCsvHoldsTheJsonMapsRowByRow) {
  const std::string csv_path = ::testing::TempDir() + "/glance-attention-" + std::to_string(::getpid()) + ".csv";
  CliProcess p({"caption", DefaultDemoImagePath(), "--json", "--max-tokens", "3", "--attention-csv", csv_path});
  ASSERT_EQ(p.Wait(), 0) << p.err;
  const nlohmann::json j = nlohmann::json::parse(p.out);
  std::ifstream in(csv_path);
  ASSERT_TRUE(in) << csv_path;
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "model,precision,step,token_id,token_text,word,word_text,image_index,kind,layer,head,row,col,weight");
  std::map<std::string, float> rows;  // "step,kind,layer,head,row,col" -> weight
  size_t count = 0;
  while (std::getline(in, line)) {
    ++count;
    std::vector<std::string> f;  // the demo's tokens hold no commas or quotes: a plain split
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (line.back() == ',') f.push_back("");
    ASSERT_EQ(f.size(), 14u) << line;
    rows[f[2] + "," + f[8] + "," + f[9] + "," + f[10] + "," + f[11] + "," + f[12]] = std::strtof(f[13].c_str(), nullptr);  // stof throws on denormals
  }
  std::remove(csv_path.c_str());
  size_t want = 0;
  for (const nlohmann::json& m : j.at("attention")) {
    const int step = m.at("step").get<int>(), cells = 49;
    const auto layers = m.at("layers").get<std::vector<int>>();
    const int heads = m.at("n_heads").get<int>();
    const auto weights = m.at("weights").get<std::vector<float>>();
    const auto mean = m.at("mean").get<std::vector<float>>();
    const auto linear = m.at("linear_layers").get<std::vector<int>>();
    const int linear_heads = m.at("linear_heads").get<int>();
    const auto linear_weights = m.at("linear_weights").get<std::vector<float>>();
    want += static_cast<size_t>(cells) * (1 + layers.size() * heads + linear.size() * linear_heads);
    auto at = [&](const std::string& kind, const std::string& l, const std::string& h, int c) {
      const std::string key = std::to_string(step) + "," + kind + "," + l + "," + h + "," + std::to_string(c / 7) +
                              "," + std::to_string(c % 7);
      EXPECT_EQ(rows.count(key), 1u) << key;
      return rows[key];
    };
    for (int c = 0; c < cells; ++c) {
      EXPECT_EQ(at("mean", "", "", c), mean[static_cast<size_t>(c)]);
      for (size_t l = 0; l < layers.size(); ++l)
        for (int h = 0; h < heads; ++h)
          EXPECT_EQ(at("softmax", std::to_string(layers[l]), std::to_string(h), c),
                    weights[(l * heads + h) * cells + c]);
      for (size_t l = 0; l < linear.size(); ++l)
        for (int h = 0; h < linear_heads; ++h)
          EXPECT_EQ(at("deltanet", std::to_string(linear[l]), std::to_string(h), c),
                    linear_weights[(l * linear_heads + h) * cells + c]);
    }
  }
  EXPECT_EQ(count, want);
  EXPECT_GT(want, 0u);
  // Refused before the model loads: a folder, --no-attention, a missing folder for the file.
  CliProcess folder({"caption", std::filesystem::path(DefaultDemoImagePath()).parent_path().string(), "--attention-csv", csv_path});
  EXPECT_EQ(folder.Wait(), 1);
  EXPECT_NE(folder.err.find("--attention-csv is for one image"), std::string::npos) << folder.err;
  CliProcess off({"caption", DefaultDemoImagePath(), "--attention-csv", csv_path, "--no-attention"});
  EXPECT_EQ(off.Wait(), 1);
  EXPECT_NE(off.err.find("--no-attention"), std::string::npos) << off.err;
  CliProcess missing({"caption", DefaultDemoImagePath(), "--attention-csv", "/nonexistent-glance/x.csv"});
  EXPECT_EQ(missing.Wait(), 1);
  EXPECT_NE(missing.err.find("does not exist"), std::string::npos) << missing.err;
  EXPECT_EQ(missing.err.find("tokens"), std::string::npos) << "refused before captioning: " << missing.err;
}

TEST(CliUsage, DuplicatedFlagIsRefusedNamingIt) {
  CliProcess p({"caption", "--max-tokens", "3", "--prompt", "a", "--max-tokens", "4"});
  EXPECT_EQ(p.Wait(), 1);
  EXPECT_NE(p.err.find("--max-tokens is given twice"), std::string::npos) << p.err;
  EXPECT_EQ(Lines(p.err), 1) << p.err;
  CliProcess b({"info", "--json", "--json=1"});
  EXPECT_EQ(b.Wait(), 1);
  EXPECT_NE(b.err.find("--json"), std::string::npos) << b.err;
}

// A value out of range is one line naming the flag as typed, once, with what is allowed.
TEST(CliUsage, BadFlagValueNamesTheFlagOnce) {
  const std::string image = std::string(GLANCE_TEST_DATA) + "/tiny-a/image.png";
  CliProcess p({"caption", image, "--threads", "100000"});
  EXPECT_EQ(p.Wait(), 1);
  EXPECT_NE(p.err.find("--threads: '100000' is out of range; allowed 0..1024"), std::string::npos) << p.err;
  EXPECT_EQ(p.err.find("threads: '"), p.err.find("--threads: '") + 2) << p.err;  // not "--threads: threads:"
  EXPECT_EQ(Lines(p.err), 1) << p.err;
  CliProcess t({"caption", image, "--top-k", "1e30"});
  EXPECT_EQ(t.Wait(), 1);
  EXPECT_NE(t.err.find("--top-k: '1e30' is not a whole number"), std::string::npos) << t.err;
}

// An old flag name and its new one together are the same option given twice (issue 12): each
// alias pair, in either order and with --name=value, on the commands that take them.
TEST(CliUsage, AnAliasAndItsFlagTogetherAreRefusedNamingBoth) {
  const std::vector<std::vector<std::string>> cases = {
      {"caption", "--max-tokens", "3", "--max-new-tokens", "4"},
      {"chat", "--max-new-tokens=4", "--max-tokens=3"},
      {"caption", "--mode", "fast", "--image-mode", "detail"},
      {"serve", "--greedy", "true", "--sampling", "custom"},
  };
  for (const auto& args : cases) {
    CliProcess p(args);
    EXPECT_EQ(p.Wait(), 1) << args[1] << " " << p.err;
    // One error line (caption's note about the demo image may come before it) naming both.
    const size_t at = p.err.find("given twice");
    ASSERT_NE(at, std::string::npos) << p.err;
    const size_t begin = p.err.rfind('\n', at), end = p.err.find('\n', at);
    const std::string line = p.err.substr(begin == std::string::npos ? 0 : begin + 1, end - begin);
    for (const std::string& a : args)
      if (a.rfind("--", 0) == 0) {
        const std::string name = a.substr(0, a.find('='));
        EXPECT_NE(line.find(name + " "), std::string::npos) << name << " not named: " << line;
      }
  }
  // Control: each spelling alone is accepted (caption answers on the demo image).
  CliProcess alone({"caption", "--max-tokens", "3", "--mode", "fast"});
  EXPECT_EQ(alone.Wait(), 0) << alone.err;
}

TEST(CliUsage, SingleDashOptionIsRefused) {
  CliProcess p({"caption", "-x"});
  EXPECT_EQ(p.Wait(), 1);
  EXPECT_NE(p.err.find("unknown option -x"), std::string::npos) << p.err;
  EXPECT_EQ(Lines(p.err), 1) << p.err;
}

TEST(CliChat, ClosedStdinIsAnErrorNotTheWeightsFile) {
  CliProcess p({"chat", "--max-tokens", "2"}, /*close_stdin=*/true);
  EXPECT_EQ(p.Wait(60), 1);
  EXPECT_NE(p.err.find("standard input is closed"), std::string::npos) << p.err;
  EXPECT_EQ(Lines(p.err), 1) << p.err;
  EXPECT_TRUE(p.out.empty()) << p.out.substr(0, 200);
}

TEST(CliChat, UnknownCommandSaysSo) {
  CliProcess p({"chat", "--max-tokens", "2"});
  p.Write("/frobnicate now\n/quit\n");
  EXPECT_EQ(p.Wait(60), 0) << p.err;
  EXPECT_NE(p.err.find("unknown command /frobnicate"), std::string::npos) << p.err;
}

TEST(CliChat, ImagesArePlacedMidMessageAndAFailedLineAddsNothing) {
  const std::string image = std::string(GLANCE_TEST_DATA) + "/tiny-a/image.png";
  CliProcess p({"chat", "--max-tokens", "2"});
  // A line whose second image cannot be read adds nothing: /send then has nothing to send.
  // Then a message with two images placed in its text, and one built over /text and /image.
  p.Write("Look {image:" + image + "} and {image:/nonexistent/none.png}\n/send\n" +
          "Which is older, {image:" + image + "} or {image:" + image + "}?\n" +
          "/text First this:\n/image " + image + "\n/send\n/quit\n");
  EXPECT_EQ(p.Wait(120), 0) << p.err;
  EXPECT_NE(p.err.find("/nonexistent/none.png"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("nothing to send"), std::string::npos) << p.err;
  // Four images read (the failed line's first, two, then one), and two answers.
  size_t images = 0;
  for (size_t at = p.err.find("[image "); at != std::string::npos; at = p.err.find("[image ", at + 1)) ++images;
  EXPECT_EQ(images, 4u) << p.err;
  EXPECT_GE(Lines(p.out), 2) << p.out;
}

TEST(CliChat, CtrlCStopsTheAnswerAndReturnsToThePrompt) {
  // tiny-a's random weights never say <|im_end|>: every answer runs long enough to interrupt
  // (the demo model is trained and may finish first).
  CliProcess p({"chat", "--model", std::string(GLANCE_TEST_DATA) + "/tiny-a", "--max-tokens", "4000"});
  ASSERT_TRUE(p.started());
  ASSERT_TRUE(p.WaitForStderr("> ", 60)) << p.err;
  p.Write("hello\n");
  ASSERT_TRUE(p.WaitForStdout(8, 60)) << p.err;  // the answer is streaming
  const size_t before = p.err.size();
  p.Signal(SIGINT);
  ASSERT_TRUE(p.WaitForStderr("[stopped]", 30, before)) << p.err;
  ASSERT_TRUE(p.WaitForStderr("> ", 30, before)) << p.err;  // back at the prompt, still running
  // A second turn works after the stop.
  p.Write("again\n");
  ASSERT_TRUE(p.WaitForStdout(p.out.size() + 4, 60));
  p.Signal(SIGINT);
  ASSERT_TRUE(p.WaitForStderr("[stopped]", 30, p.err.rfind("> ") + 1)) << p.err;
  p.Write("/quit\n");
  EXPECT_EQ(p.Wait(60), 0) << p.err;
}

TEST(CliChat, CtrlCAtThePromptLeaves) {
  CliProcess p({"chat", "--max-tokens", "2"});
  ASSERT_TRUE(p.WaitForStderr("> ", 60)) << p.err;
  p.Signal(SIGINT);
  EXPECT_EQ(p.Wait(30), 130) << p.err;
}

}  // namespace
}  // namespace glance::test
