// Per-stage timing on the NPU path (issue 30 item 5): each stage of a turn (vision, prefill,
// decode, ...) splits into the backend's device dispatch time, its data transfer/sync time and
// host time, from Backend::DeviceTotals read at the stage's start and end (core/engine/timing.h).
// Through the stand-in device (an npu-export bundle of tiny-a: the XRT sequence's writes, syncs
// and reads are the transfer share): the stage splits sum to the turn's per-kernel npu:<key>
// and sync:npu entries, every split fits inside its stage, and vision, prefill and decode all
// dispatch. On the CPU backend every split is zero (the control).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "core/engine/engine.h"
#include "core/engine/session.h"
#include "core/npu/bundle_export.h"

namespace glance {
namespace {

namespace fs = std::filesystem;
const std::string kTiny = std::string(GLANCE_TEST_DATA) + "/tiny-a";

TurnStats OneTurn(BackendKind backend, const std::string& bundle) {
  EngineOptions o;
  o.threads = 2;
  o.precision = Precision::kF32;
  o.backend = backend;
  o.npu_bundle = bundle;
  Session session(Engine::Load(kTiny, o));
  session.AttachImage(kTiny + "/image.png");
  GenerateOptions g;
  g.max_new_tokens = 6;
  return session.Send("Describe this image.", g).stats;
}

const StageTime* Find(const TurnStats& st, const std::string& name) {
  for (const auto& s : st.stages)
    if (s.name == name) return &s;
  return nullptr;
}

TEST(NpuStageSplit, EachStageSplitsIntoDispatchTransferAndHostAndTheSplitsSumToTheKernelTimes) {
  const fs::path bundle = fs::temp_directory_path() / ("glance_stage_split_" + std::to_string(::getpid()));
  fs::remove_all(bundle);
  npu::ExportNpuBundle(kTiny, bundle.string());
  const TurnStats st = OneTurn(BackendKind::kNpuEmu, bundle.string());
  double split_npu = 0, split_transfer = 0, kernel_npu = 0, kernel_transfer = 0;
  for (const auto& s : st.stages) {
    if (s.name.rfind("npu:", 0) == 0) kernel_npu += s.seconds;
    else if (s.name == "sync:npu") kernel_transfer += s.seconds;
    else if (s.name.find(':') == std::string::npos) {
      split_npu += s.npu_s;
      split_transfer += s.transfer_s;
      EXPECT_GE(s.npu_s, 0.0) << s.name;
      EXPECT_GE(s.transfer_s, 0.0) << s.name;
      EXPECT_GE(s.host_s(), -1e-6) << s.name << ": the split is larger than the stage";
    }
  }
  for (const char* stage : {"vision", "prefill", "decode"}) {
    const StageTime* s = Find(st, stage);
    ASSERT_NE(s, nullptr) << stage;
    EXPECT_GT(s->npu_s, 0.0) << stage;
    EXPECT_GT(s->transfer_s, 0.0) << stage << ": the stand-in's writes, syncs and reads";
    EXPECT_GT(s->host_s(), 0.0) << stage;
    std::printf("%-8s %.4f s = npu %.4f + transfer %.4f + host %.4f\n", stage, s->seconds, s->npu_s, s->transfer_s,
                s->host_s());
  }
  // Every dispatch happens inside a stage: the stage splits add up to the per-kernel entries.
  EXPECT_NEAR(split_npu, kernel_npu, 1e-6 + 1e-6 * kernel_npu);
  EXPECT_NEAR(split_transfer, kernel_transfer, 1e-6 + 1e-6 * kernel_transfer);
  EXPECT_GT(kernel_transfer, 0.0);
  fs::remove_all(bundle);
}

TEST(NpuStageSplit, TheCpuBackendHasNoDeviceShare) {
  const TurnStats st = OneTurn(BackendKind::kCpu, "");
  for (const auto& s : st.stages) {
    EXPECT_EQ(s.npu_s, 0.0) << s.name;
    EXPECT_EQ(s.transfer_s, 0.0) << s.name;
  }
  ASSERT_NE(Find(st, "decode"), nullptr);
  EXPECT_DOUBLE_EQ(Find(st, "decode")->host_s(), Find(st, "decode")->seconds);
}

}  // namespace
}  // namespace glance
