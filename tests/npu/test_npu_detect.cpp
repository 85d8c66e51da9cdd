// Detection against fake /dev, /sys, /proc and /lib/firmware trees in a temporary folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/model/safetensors.h"
#include "core/npu/backend_select.h"
#include "core/npu/npu_detect.h"
#include "kernels/npu/npu_device.h"

namespace glance::npu {
namespace {

namespace fs = std::filesystem;

class FakeRoot : public ::testing::Test {
 public:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("glance_npu_detect_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const std::string& rel, const std::string& text) {
    const fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  void FullMachine() {
    Write("dev/accel/accel0", "");
    fs::create_directories(root_ / "sys/module/amdxdna");
    Write("sys/bus/pci/devices/0000:c5:00.1/vendor", "0x1022\n");
    Write("sys/bus/pci/devices/0000:c5:00.1/device", "0x17f0\n");
    Write("sys/bus/pci/devices/0000:00:00.0/vendor", "0x8086\n");
    Write("sys/bus/pci/devices/0000:00:00.0/device", "0x17f0\n");
    Write("lib/firmware/amdnpu/17f0_10/npu.sbin", "fw");
    Write("bundle/manifest.txt",
          "version 1\nxclbin gemm kernels/gemm.xclbin MLIR_AIE\n"
          "gemm q M=256 K=512 N=64 lda=512 c_stride=64 b_bytes=36864 a_elems=131072 c_elems=16384 "
          "insts=kernels/q.bin\n");
    Write("bundle/kernels/gemm.xclbin", "x");
    Write("bundle/kernels/q.bin", "i");
    Write("bundle/tensors.txt", "l0.g.o u8 36864 0 36864\n");
    std::ofstream(root_ / "bundle/tensors.bin", std::ios::binary) << std::string(36864, '\0');
  }
  DetectOptions Options() {
    DetectOptions o;
    o.root = root_.string();
    o.bundle_dir = (root_ / "bundle").string();
    o.memlock_limit = 1 << 20;
    o.xrt_device_opens = [](std::string* why) { *why = "fake device"; return true; };
    o.hw_context_free = [](std::string* why) { *why = "fake slot"; return true; };
    return o;
  }
  static const NpuCheck& Check(const NpuStatus& s, const std::string& name) {
    for (const auto& c : s.checks)
      if (c.name == name) return c;
    throw std::runtime_error("no check " + name);
  }
  fs::path root_;
};

TEST_F(FakeRoot, EveryCheckPassesOnAFullMachine) {
  FullMachine();
  const NpuStatus s = DetectNpu(Options());
  for (const auto& c : s.checks) EXPECT_TRUE(c.passed) << c.name << ": " << c.detail;
  EXPECT_TRUE(s.ready());
  EXPECT_EQ(s.checks.size(), 8u);
}

TEST_F(FakeRoot, AnEmptyMachineFailsEveryHardwareCheck) {
  DetectOptions o = Options();
  o.bundle_dir.clear();
  o.xrt_device_opens = [](std::string* why) { *why = "no XRT"; return false; };
  const NpuStatus s = DetectNpu(o);
  EXPECT_FALSE(s.ready());
  for (const char* name : {"device node", "driver", "PCI id", "firmware", "bundle", "memlock limit", "XRT",
                           "hardware context"})
    EXPECT_FALSE(Check(s, name).passed) << name;
  EXPECT_NE(s.summary().find("device node"), std::string::npos);
}

TEST_F(FakeRoot, EachMissingPieceIsNamed) {
  struct Case {
    std::string check;
    std::function<void(FakeRoot&, DetectOptions&)> breakit;
  };
  const std::vector<Case> cases = {
      {"device node", [](FakeRoot& f, DetectOptions&) { fs::remove(f.root_ / "dev/accel/accel0"); }},
      {"driver", [](FakeRoot& f, DetectOptions&) { fs::remove_all(f.root_ / "sys/module/amdxdna"); }},
      {"PCI id", [](FakeRoot& f, DetectOptions&) { f.Write("sys/bus/pci/devices/0000:c5:00.1/device", "0x1234\n"); }},
      {"firmware", [](FakeRoot& f, DetectOptions&) { fs::remove_all(f.root_ / "lib/firmware/amdnpu/17f0_10"); }},
      {"memlock limit", [](FakeRoot&, DetectOptions& o) { o.memlock_limit = 4096; }},
      {"XRT", [](FakeRoot&, DetectOptions& o) { o.xrt_device_opens = [](std::string* w) { w->assign(1, 'x'); return false; }; }},
      {"hardware context", [](FakeRoot&, DetectOptions& o) { o.hw_context_free = [](std::string* w) { *w = "busy"; return false; }; }},
      {"bundle", [](FakeRoot& f, DetectOptions&) { f.Write("bundle/manifest.txt", "version 99\n"); }},
      {"bundle", [](FakeRoot& f, DetectOptions&) { fs::remove(f.root_ / "bundle/kernels/q.bin"); }},
  };
  for (const Case& c : cases) {
    fs::remove_all(root_);
    FullMachine();
    DetectOptions o = Options();
    c.breakit(*this, o);
    const NpuStatus s = DetectNpu(o);
    EXPECT_FALSE(s.ready()) << c.check;
    EXPECT_FALSE(Check(s, c.check).passed) << c.check;
    int failed = 0;
    for (const auto& k : s.checks) failed += !k.passed;
    // A bad bundle may void the memlock check, no XRT the context slot, no PCI id the firmware.
    EXPECT_LE(failed, c.check == "bundle" || c.check == "XRT" || c.check == "PCI id" ? 2 : 1) << c.check;
  }
}

TEST_F(FakeRoot, ProcModulesCountsAsLoaded) {
  FullMachine();
  fs::remove_all(root_ / "sys/module/amdxdna");
  Write("proc/modules", "snd 1 0 - Live 0x0\namdxdna 237568 0 - Live 0x0\n");
  EXPECT_TRUE(Check(DetectNpu(Options()), "driver").passed);
}

TEST(XrtPlugin, WithoutThePluginTheXrtCheckSaysWhyAndAutoRunsOnTheCpu) {
  // This build machine has no XRT plugin (packaging/check-xrt.sh tests the one built against
  // a real XRT): the real XRT check fails naming the plugin, and `auto` picks the CPU.
  std::string why;
  EXPECT_FALSE(kernels::npu::XrtDeviceOpens(&why));
  EXPECT_NE(why.find("libglance_npu_xrt.so"), std::string::npos) << why;
  DetectOptions o;
  o.bundle_dir = std::string(GLANCE_TEST_DATA) + "/npu-bundle-tiny-a";
  const NpuStatus st = DetectNpu(o);
  bool xrt_row = false;
  for (const auto& c : st.checks) xrt_row |= c.name == "XRT" && !c.passed && c.detail == why;
  EXPECT_TRUE(xrt_row);
  EXPECT_FALSE(st.ready());
  const TensorStore store = TensorStore::OpenFolder(std::string(GLANCE_TEST_DATA) + "/tiny-a");
  const BackendChoice c = SelectBackend(BackendKind::kAuto, o.bundle_dir, store);
  EXPECT_EQ(c.name, "cpu");
  EXPECT_NE(c.reason.find("no usable NPU"), std::string::npos) << c.reason;
  EXPECT_THROW(SelectBackend(BackendKind::kNpu, o.bundle_dir, store), std::runtime_error);
  EXPECT_THROW(kernels::npu::MakeXrtDevice({}), std::runtime_error);
}

}  // namespace
}  // namespace glance::npu
