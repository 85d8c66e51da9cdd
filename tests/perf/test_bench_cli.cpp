// Runs `glance-cli bench --reps 1 --json` on the bundled demo model (tiny: seconds) and checks
// every documented key is present, numeric and plausible; bad options must fail.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace {

struct RunResult {
  int status = -1;
  std::string out;
};

RunResult RunBench(const std::string& args) {
  const std::string cmd = std::string(GLANCE_BINARY_DIR) + "/app/glance-cli bench " + args + " 2>/dev/null";
  RunResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  r.status = pclose(p);
  return r;
}

}  // namespace

TEST(BenchCli, DemoModelJsonHasEveryKey) {
  const RunResult r = RunBench("--reps 1 --json --decode-tokens 8 --long-prompts 300");
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j.at("is_demo").get<bool>());
  for (const char* key : {"load_s", "vision_s_224", "vision_s_640x480", "prefill_tokens_per_s_64",
                          "prefill_tokens_per_s_512", "decode_tokens_per_s", "ttft_s",
                          "bandwidth_gb_s", "triad_gb_s", "roofline_fraction",
                          "prefill_tokens_per_s_300", "decode_tokens_per_s_at_300",
                          "decode_capture_off_tokens_per_s", "decode_capture_on_tokens_per_s"}) {
    for (const std::string suffix : {"", "_min", "_max"}) {
      const std::string k = key + suffix;
      ASSERT_TRUE(j.contains(k)) << k;
      ASSERT_TRUE(j[k].is_number()) << k;
      EXPECT_GT(j[k].get<double>(), 0.0) << k;
    }
    EXPECT_LE(j[std::string(key) + "_min"].get<double>(), j[key].get<double>()) << key;
    EXPECT_GE(j[std::string(key) + "_max"].get<double>(), j[key].get<double>()) << key;
  }
  EXPECT_GT(j.at("kv_cache_bytes_at_300").get<double>(), 0.0);
  EXPECT_GE(j.at("peak_rss_bytes_after_300").get<double>(), j.at("peak_rss_bytes").get<double>());
  ASSERT_TRUE(j.contains("peak_rss_bytes"));
  EXPECT_EQ(j["rss_within_target"].get<bool>(),
            j["peak_rss_bytes"].get<double>() <= j["rss_target_bytes"].get<double>());
  EXPECT_GT(j["peak_rss_bytes"].get<double>(), 1e6);
  EXPECT_GE(j["ttft_question_tokens"].get<int>(), 20);
  EXPECT_GT(j["decode_weight_bytes"].get<double>(), 0.0);
  // The roofline fraction is the documented formula of the reported figures (per-rep
  // decode rate, median bandwidth; with one rep the median is the sample).
  const double bytes = j["decode_weight_bytes"].get<double>() + j["decode_state_bytes"].get<double>();
  const double expect = bytes * j["decode_tokens_per_s"].get<double>() /
                        (j["bandwidth_gb_s"].get<double>() * 1e9);
  EXPECT_NEAR(j["roofline_fraction"].get<double>(), expect, 1e-9 * expect + 1e-12);
}

// The compute side (issue "CPU speed, part 3"): at q8 every projection runs the int8 GEMM, so
// bench reports the int8 peak and prefill's share of it, by the documented formula
// (projection multiply-adds a token × tok/s ÷ median peak); at f32 there are no int8
// multiply-adds and no share is claimed.
TEST(BenchCli, PrefillShareOfTheInt8PeakIsTheDocumentedFormula) {
  const RunResult q8 = RunBench("--reps 1 --json --only prefill --precision q8");
  ASSERT_EQ(q8.status, 0) << q8.out;
  const nlohmann::json j = nlohmann::json::parse(q8.out);
  if (j.at("int8_peak_isa").get<std::string>().empty()) GTEST_SKIP() << "no int8 kernels on this CPU";
  EXPECT_GT(j.at("int8_peak_gmac_s").get<double>(), 1.0);
  const double macs = j.at("prefill_int8_macs_per_token").get<double>();
  EXPECT_GT(macs, 0.0);
  for (const char* n : {"64", "512"}) {
    const double expect = macs * j.at(std::string("prefill_tokens_per_s_") + n).get<double>() /
                          (j.at("int8_peak_gmac_s").get<double>() * 1e9);
    EXPECT_NEAR(j.at(std::string("prefill_int8_fraction_") + n).get<double>(), expect, 1e-9 * expect) << n;
    EXPECT_LT(expect, 1.0) << n << ": more than the measured peak means the peak is not a ceiling";
  }
  const RunResult f32 = RunBench("--reps 1 --json --only prefill --precision f32");
  ASSERT_EQ(f32.status, 0) << f32.out;
  const nlohmann::json k = nlohmann::json::parse(f32.out);
  EXPECT_EQ(k.at("prefill_int8_macs_per_token").get<double>(), 0.0);
  EXPECT_FALSE(k.contains("prefill_int8_fraction_64") && k["prefill_int8_fraction_64"].is_number());
}

// The quantized engines' attention caches hold half-precision rows (core/lm/state.h KvType):
// after the same long prompt, q8's cache is exactly half of f32's.
TEST(BenchCli, QuantizedKvCacheIsHalfTheFloatOne) {
  double bytes[2] = {0.0, 0.0};
  const char* precisions[2] = {"f32", "q8"};
  for (int i = 0; i < 2; ++i) {
    const RunResult r = RunBench(std::string("--reps 1 --json --only decode --decode-tokens 2 --long-prompts 300 --precision ") +
                                 precisions[i]);
    ASSERT_EQ(r.status, 0) << r.out;
    bytes[i] = nlohmann::json::parse(r.out).at("kv_cache_bytes_at_300").get<double>();
  }
  EXPECT_GT(bytes[0], 0.0);
  EXPECT_EQ(bytes[1] * 2.0, bytes[0]);
}

TEST(BenchCli, BadOptionsFail) {
  EXPECT_NE(RunBench("--reps 0 --json").status, 0);
  EXPECT_NE(RunBench("--model /nonexistent/model --reps 1").status, 0);
  EXPECT_NE(RunBench("--bogus").status, 0);
  EXPECT_NE(RunBench("--reps 1 --long-prompts 12x").status, 0);
  EXPECT_NE(RunBench("--reps 1 --long-prompts 0").status, 0);
  EXPECT_NE(RunBench("--reps 1 --long-prompts 300 --long-decode-tokens -1").status, 0);
}

// The NPU path's per-stage split (issue 30 item 5): through npu-emu each measured stage reports
// NPU dispatch, transfer/sync and host seconds summing to the stage's; on the CPU the NPU and
// transfer shares are zero (the control).
TEST(BenchCli, EachStageSplitsIntoNpuTransferAndHost) {
  for (const char* backend : {"npu-emu", "cpu"}) {
    const RunResult r = RunBench(std::string("--reps 1 --json --only prefill,decode --decode-tokens 4 --backend ") + backend);
    ASSERT_EQ(r.status, 0) << r.out;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j.at("backend").get<std::string>(), backend);
    for (const std::string stage : {"prefill", "decode"}) {
      const std::string k = "split_" + stage;
      const double total = j.at(k + "_s").get<double>(), npu = j.at(k + "_npu_s").get<double>(),
                   transfer = j.at(k + "_transfer_s").get<double>(), host = j.at(k + "_host_s").get<double>();
      EXPECT_GT(total, 0.0) << k;
      EXPECT_NEAR(npu + transfer + host, total, 1e-9) << k;
      EXPECT_GE(host, 0.0) << k;
      if (std::string(backend) == "cpu") {
        EXPECT_EQ(npu, 0.0) << k;
        EXPECT_EQ(transfer, 0.0) << k;
      } else {
        EXPECT_GT(npu, 0.0) << k;
      }
    }
    EXPECT_FALSE(j.contains("split_vision_s"));  // not run (--only)
  }
}
