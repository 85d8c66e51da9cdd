// The stand-in NPU (kernels/npu/xrt_standin.h) and the XRT call sequence over it
// (xrt_sequence.cpp): the sequence computes what the emulator computes, bit for bit, choosing
// kernels by record key; and each contract rule, broken on its own in an otherwise correct
// sequence, is refused by name (a test per rule, each with the correct sequence as its control).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "kernels/cpu/numeric.h"
#include "kernels/npu/emulate_gemm.h"
#include "kernels/npu/xrt_api.h"
#include "kernels/npu/xrt_standin.h"
#include "tests/npu/npu_test_data.h"

namespace glance::kernels::npu {
namespace {

namespace fs = std::filesystem;

// Kernel records as a bundle's: gemm o and gemm gu share K × N (gu with the SwiGLU epilogue),
// gemv o on a second context; each instruction stream a file of distinct words.
struct Kernels {
  fs::path dir;
  std::vector<XrtKernelSpec> specs;
  Kernels() {
    dir = fs::temp_directory_path() / ("glance_standin_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    auto add = [&](KernelFamily f, const std::string& key, const std::string& ctx, Epilogue e, uint32_t tag) {
      XrtKernelSpec s;
      s.family = f;
      s.key = key;
      s.k = 512;
      s.n = 128;
      s.context = ctx;
      s.xclbin = (dir / (ctx + ".xclbin")).string();
      s.kernel_name = "MLIR_AIE";
      s.insts = (dir / (key + "_" + ctx + ".bin")).string();
      s.epilogue = e;
      const uint32_t words[4] = {0x06030100u, tag, tag * 7, 0xffu};
      std::ofstream(s.insts, std::ios::binary).write(reinterpret_cast<const char*>(words), sizeof words);
      specs.push_back(s);
    };
    add(KernelFamily::kGemm, "o", "gemm", Epilogue::kNone, 1);
    add(KernelFamily::kGemm, "gu", "gemm", Epilogue::kSwiGluPairs, 2);
    add(KernelFamily::kGemv, "o", "gemv", Epilogue::kNone, 3);
  }
  ~Kernels() { fs::remove_all(dir); }
};

std::vector<uint16_t> Bf16(const std::vector<float>& v) {
  std::vector<uint16_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = f32_to_bf16(v[i]);
  return out;
}

TEST(XrtStandin, TheSequenceComputesWhatTheEmulatorDoesByRecordKey) {
  Kernels ks;
  auto api = std::make_unique<StandinXrt>(ks.specs);
  StandinXrt* standin = api.get();
  auto dev = MakeSequenceDevice(std::move(api), ks.specs, "npu-standin");
  auto emu = MakeEmulatorDevice(1);
  const auto w = test_data::RandomNormal(128 * 512, 1, 0.05f);
  const int h = dev->UploadWeight(PackWeight(w.data(), 128, 512)), he = emu->UploadWeight(PackWeight(w.data(), 128, 512));
  const auto a = Bf16(test_data::RandomNormal(256 * 512, 2, 1.0f));
  for (const auto& [family, key, epi, rows] : {std::tuple{KernelFamily::kGemm, "o", Epilogue::kNone, 256},
                                               std::tuple{KernelFamily::kGemm, "gu", Epilogue::kSwiGluPairs, 256},
                                               std::tuple{KernelFamily::kGemv, "o", Epilogue::kNone, 1}}) {
    std::vector<uint16_t> got(static_cast<size_t>(rows * 128)), want(got.size());
    dev->Run(family, h, a.data(), rows, got.data(), nullptr, epi, key);
    emu->Run(family, he, a.data(), rows, want.data(), nullptr, epi, key);
    EXPECT_EQ(got, want) << key;
  }
  EXPECT_EQ(standin->runs(), 3);
  EXPECT_EQ(standin->contexts(), 2);
  // The gu kernel has its epilogue built in: a dispatch expecting plain columns is refused.
  std::vector<uint16_t> c(256 * 128);
  EXPECT_THROW(dev->Run(KernelFamily::kGemm, h, a.data(), 256, c.data(), nullptr, Epilogue::kNone, "gu"), Error);
  // No record for the key: refused, not run on a kernel of the same shape.
  EXPECT_THROW(dev->Run(KernelFamily::kGemm, h, a.data(), 256, c.data(), nullptr, Epilogue::kNone, "down"), Error);
  EXPECT_FALSE(dev->HasKernel(KernelFamily::kGemv, 512, 128, "gu"));
}

TEST(XrtStandin, ARunEndingInAnyStateButCompletedIsAnError) {
  Kernels ks;
  StandinOptions o;
  o.fail_run = 1;
  auto dev = MakeSequenceDevice(std::make_unique<StandinXrt>(ks.specs, o), ks.specs);
  const auto w = test_data::RandomNormal(128 * 512, 1, 0.05f);
  const int h = dev->UploadWeight(PackWeight(w.data(), 128, 512));
  std::vector<uint16_t> a(512), c(128);
  EXPECT_NO_THROW(dev->Run(KernelFamily::kGemv, h, a.data(), 1, c.data(), nullptr, Epilogue::kNone, "o"));  // control
  EXPECT_THROW(dev->Run(KernelFamily::kGemv, h, a.data(), 1, c.data(), nullptr, Epilogue::kNone, "o"), Error);
}

// One GEMV run done by hand, every step correct unless `broken` names it.
void HandRun(const Kernels& ks, const std::string& broken, StandinOptions o = {}) {
  const XrtKernelSpec& s = ks.specs[2];  // gemv o
  StandinXrt x(ks.specs, o);
  const int ctx = x.OpenContext(x.RegisterXclbin(broken == "xclbin" ? "/elsewhere/other.xclbin" : s.xclbin));
  if (broken == "contexts") {  // a second and third xclbin context are fine; a fourth is not
    x.OpenContext(x.RegisterXclbin(ks.specs[0].xclbin));
    x.OpenContext(x.RegisterXclbin(s.xclbin));
    x.OpenContext(x.RegisterXclbin(s.xclbin));
  }
  const int kernel = x.OpenKernel(ctx, broken == "name" ? "MLIR_AIE_2" : s.kernel_name);
  const std::vector<uint32_t> words = ReadInstructionWords(s.insts);
  const uint32_t bytes = static_cast<uint32_t>(words.size() * 4);
  const int instr = x.AllocBo(bytes, broken == "instr flags" ? BoFlags::kHostOnly : BoFlags::kCacheable, x.KernelGroup(kernel, 1));
  x.Write(instr, words.data(), bytes, 0);
  if (broken != "instr sync") x.Sync(instr, SyncDirection::kToDevice);
  const auto w = test_data::RandomNormal(128 * 512, 1, 0.05f);
  const PackedWeight p = PackWeight(w.data(), 128, 512);
  const int wb = x.AllocBo(p.bytes.size(), BoFlags::kHostOnly, 0);
  x.Write(wb, p.bytes.data(), p.bytes.size(), 0);
  x.Sync(wb, SyncDirection::kToDevice);
  const int a_root = x.AllocBo(2 * 512, BoFlags::kHostOnly, broken == "data group" ? 1 : 0);
  const int c_root = x.AllocBo(2 * 128, BoFlags::kHostOnly, 0);
  int a = x.SubBo(a_root, 0, 2 * 512);
  if (broken == "sub of sub") a = x.SubBo(a, 0, 2 * 512);
  const int c = x.SubBo(c_root, 0, 2 * 128);
  const std::vector<uint16_t> in(512, 0x3f80);
  x.Write(a, in.data(), 2 * 512, 0);
  if (broken != "input sync") x.Sync(a, SyncDirection::kToDevice);
  std::vector<int> data = {a, wb, c};
  if (broken == "sixth bo")
    for (int i = 0; i < 3; ++i) data.push_back(x.AllocBo(64, BoFlags::kHostOnly, 0));
  const int run = x.Start(kernel, broken == "opcode" ? 2u : kOpcodeTransaction, broken == "no instr" ? -1 : instr,
                          broken == "size in words" ? bytes / 4 : bytes, data);
  if (broken == "state") x.Start(kernel, kOpcodeTransaction, instr, bytes, data);  // wait() never called
  ASSERT_EQ(x.Wait(run), RunState::kCompleted);
  if (broken != "output sync") x.Sync(c, SyncDirection::kFromDevice);
  std::vector<uint16_t> out(128);
  x.Read(c, out.data(), 2 * 128, 0);
}

TEST(XrtStandin, EveryContractRuleBrokenAloneIsRefusedByName) {
  Kernels ks;
  EXPECT_NO_THROW(HandRun(ks, ""));  // the control: the correct sequence runs
  const std::vector<std::pair<std::string, std::string>> rules = {
      {"xclbin", "named by no kernel record"},
      {"contexts", "mlir-aie issue 3654"},
      {"name", "not the name the bundle's xclbin record gives"},
      {"instr flags", "cacheable, in the kernel's group_id(1)"},
      {"instr sync", "instruction buffer was never synced"},
      {"no instr", "no instruction buffer"},
      {"size in words", "is not the stream's"},
      {"opcode", "not 3"},
      {"data group", "host-only in group 0"},
      {"sub of sub", "cut it from the root allocation"},
      {"input sync", "not synced to the device before the run"},
      {"sixth bo", "more than 5"},
      {"state", "state was checked"},
      {"output sync", "before it was synced from the device"},
  };
  for (const auto& [broken, says] : rules) {
    try {
      HandRun(ks, broken);
      ADD_FAILURE() << broken << ": accepted";
    } catch (const StandinViolation& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << broken << ": " << e.what();
    }
  }
  // 16 slots system-wide: with 15 held elsewhere, a second context of ours does not fit.
  StandinOptions busy;
  busy.slots_in_use_elsewhere = 15;
  StandinXrt x(ks.specs, busy);
  x.OpenContext(x.RegisterXclbin(ks.specs[0].xclbin));
  try {
    x.OpenContext(x.RegisterXclbin(ks.specs[2].xclbin));
    ADD_FAILURE() << "slots: accepted";
  } catch (const StandinViolation& e) {
    EXPECT_NE(std::string(e.what()).find("16 system-wide"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace glance::kernels::npu
