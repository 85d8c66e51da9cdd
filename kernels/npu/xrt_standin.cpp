#include "kernels/npu/xrt_standin.h"

#include <algorithm>
#include <cstring>

#include "kernels/npu/emulate_gemm.h"

namespace glance::kernels::npu {

StandinXrt::StandinXrt(const std::vector<XrtKernelSpec>& catalog, StandinOptions options) : options_(options) {
  for (const XrtKernelSpec& s : catalog) streams_.push_back({s, ReadInstructionWords(s.insts)});
}

void StandinXrt::Violate(const std::string& rule) const { throw StandinViolation("NPU stand-in: " + rule); }

const StandinXrt::Bo& StandinXrt::BoAt(int bo, const char* what) const {
  if (bo < 0 || static_cast<size_t>(bo) >= bos_.size()) Violate(std::string(what) + ": no such buffer object");
  return bos_[static_cast<size_t>(bo)];
}

int StandinXrt::RegisterXclbin(const std::string& path) {
  if (std::none_of(streams_.begin(), streams_.end(), [&](const Stream& s) { return s.spec.xclbin == path; }))
    Violate("xclbin " + path + " is named by no kernel record of the bundle");
  const auto it = std::find(xclbins_.begin(), xclbins_.end(), path);
  if (it != xclbins_.end()) return static_cast<int>(it - xclbins_.begin());
  xclbins_.push_back(path);
  return static_cast<int>(xclbins_.size() - 1);
}

int StandinXrt::OpenContext(int xclbin) {
  if (xclbin < 0 || static_cast<size_t>(xclbin) >= xclbins_.size()) Violate("hw_context on an xclbin never registered");
  if (static_cast<int>(contexts_.size()) >= kMaxContextsPerProcess)
    Violate("a " + std::to_string(contexts_.size() + 1) + "th hardware context in one process (at most " +
            std::to_string(kMaxContextsPerProcess) + ": a third distinct xclbin has returned garbage, mlir-aie issue 3654)");
  if (static_cast<int>(contexts_.size()) + options_.slots_in_use_elsewhere >= kHardwareContextSlots)
    Violate("no free hardware-context slot (" + std::to_string(kHardwareContextSlots) + " system-wide)");
  contexts_.push_back(xclbin);
  return static_cast<int>(contexts_.size() - 1);
}

int StandinXrt::OpenKernel(int context, const std::string& name) {
  if (context < 0 || static_cast<size_t>(context) >= contexts_.size()) Violate("xrt::kernel on a context never opened");
  const std::string& xclbin = xclbins_[static_cast<size_t>(contexts_[static_cast<size_t>(context)])];
  if (std::none_of(streams_.begin(), streams_.end(),
                   [&](const Stream& s) { return s.spec.xclbin == xclbin && s.spec.kernel_name == name; }))
    Violate("kernel `" + name + "` is not the name the bundle's xclbin record gives for " + xclbin);
  kernels_.emplace_back(context, name);
  return static_cast<int>(kernels_.size() - 1);
}

int StandinXrt::KernelGroup(int kernel, int arg) {
  if (kernel < 0 || static_cast<size_t>(kernel) >= kernels_.size()) Violate("group_id of a kernel never opened");
  return arg == 1 ? 1 : 0;  // the instruction stream's argument, and the data's memory group
}

int StandinXrt::AllocBo(size_t bytes, BoFlags flags, int group) {
  if (bytes == 0) Violate("a buffer object of 0 bytes");
  const int id = static_cast<int>(bos_.size());
  bos_.push_back({id, 0, bytes, flags, group});
  Root& r = roots_[id];
  r.host.assign(bytes, 0);
  r.device.assign(bytes, 0);
  return id;
}

int StandinXrt::SubBo(int parent, size_t offset, size_t bytes) {
  const Bo p = BoAt(parent, "sub-buffer");
  if (p.root != parent) Violate("a sub-buffer cut from a sub-buffer: cut it from the root allocation");
  if (bytes == 0 || offset + bytes > p.bytes) Violate("a sub-buffer past its root allocation's end");
  bos_.push_back({parent, offset, bytes, p.flags, p.group});
  return static_cast<int>(bos_.size() - 1);
}

void StandinXrt::Write(int bo, const void* src, size_t bytes, size_t offset) {
  const Bo& b = BoAt(bo, "write");
  if (offset + bytes > b.bytes) Violate("write past a buffer object's end");
  Root& r = roots_.at(b.root);
  std::memcpy(r.host.data() + b.offset + offset, src, bytes);
  r.host_newer = true;
}

void StandinXrt::Read(int bo, void* dst, size_t bytes, size_t offset) {
  const Bo& b = BoAt(bo, "read");
  if (offset + bytes > b.bytes) Violate("read past a buffer object's end");
  const Root& r = roots_.at(b.root);
  if (r.device_newer) Violate("an output read before it was synced from the device");
  std::memcpy(dst, r.host.data() + b.offset + offset, bytes);
}

void StandinXrt::Sync(int bo, SyncDirection dir) {
  const Bo& b = BoAt(bo, "sync");
  Root& r = roots_.at(b.root);
  if (dir == SyncDirection::kToDevice) {
    std::memcpy(r.device.data() + b.offset, r.host.data() + b.offset, b.bytes);
    r.host_newer = false;
  } else {
    std::memcpy(r.host.data() + b.offset, r.device.data() + b.offset, b.bytes);
    r.device_newer = false;
  }
}

int StandinXrt::Start(int kernel, unsigned opcode, int instr_bo, uint32_t instr_bytes, const std::vector<int>& data_bos) {
  if (!runs_.empty() && !runs_.back()) Violate("a run started before the previous run's state was checked (run.wait())");
  if (kernel < 0 || static_cast<size_t>(kernel) >= kernels_.size()) Violate("run of a kernel never opened");
  if (opcode != kOpcodeTransaction) Violate("opcode " + std::to_string(opcode) + ", not 3 (transaction)");
  if (instr_bo < 0) Violate("a run with no instruction buffer (XRT reports success and does nothing)");
  const Bo& ib = BoAt(instr_bo, "instruction buffer");
  if (ib.flags != BoFlags::kCacheable || ib.group != KernelGroup(kernel, 1))
    Violate("the instruction buffer must be cacheable, in the kernel's group_id(1)");
  if (instr_bytes != ib.bytes) Violate("instruction size " + std::to_string(instr_bytes) + " is not the stream's " +
                                       std::to_string(ib.bytes) + " bytes");
  if (roots_.at(ib.root).host_newer) Violate("the instruction buffer was never synced to the device");
  if (data_bos.size() > kMaxDataBos) Violate(std::to_string(data_bos.size()) + " data buffers (more than 5 crashes XRT)");
  for (const int d : data_bos) {
    const Bo& b = BoAt(d, "data buffer");
    if (b.flags != BoFlags::kHostOnly || b.group != 0) Violate("a data buffer that is not host-only in group 0");
  }
  // What runs is what the instruction stream the device holds says.
  const auto& [context, name] = kernels_[static_cast<size_t>(kernel)];
  const std::string& xclbin = xclbins_[static_cast<size_t>(contexts_[static_cast<size_t>(context)])];
  const Root& ir = roots_.at(ib.root);
  const Stream* stream = nullptr;
  for (const Stream& s : streams_)
    if (s.spec.xclbin == xclbin && s.spec.kernel_name == name && s.words.size() * 4 == ib.bytes &&
        std::memcmp(s.words.data(), ir.device.data() + ib.offset, ib.bytes) == 0)
      stream = &s;
  if (!stream) Violate("the instruction buffer holds no stream of this kernel's xclbin");
  const XrtKernelSpec& spec = stream->spec;
  if (data_bos.size() != 3) Violate("GEMM / GEMV runs take (A, W, C), got " + std::to_string(data_bos.size()) + " data buffers");
  const Bo &a = BoAt(data_bos[0], "A"), &w = BoAt(data_bos[1], "W"), &c = BoAt(data_bos[2], "C");
  for (const Bo* in : {&a, &w})
    if (roots_.at(in->root).host_newer) Violate("an input written on the host but not synced to the device before the run");
  const int64_t rows = spec.family == KernelFamily::kGemm ? spec.chunks * kMChunk : 1;
  const bool rows_layout = spec.family == KernelFamily::kGemv && spec.key == "head";
  PackedWeight pw = PackedShape(spec.n, spec.k, rows_layout ? PackedLayout::kGemvRows : PackedLayout::kGemmTiles);
  const int64_t c_cols = spec.epilogue == Epilogue::kSwiGluPairs ? spec.n / 2 : spec.n;
  if (a.bytes < static_cast<size_t>(rows * spec.k * 2)) Violate("A is smaller than the stream's rows × K");
  if (w.bytes != static_cast<size_t>(PackedBytes(pw))) Violate("W is not this kernel's packed K × N");
  if (c.bytes < static_cast<size_t>(rows * c_cols * 2)) Violate("C is smaller than the stream's rows × N");
  const bool ok = static_cast<int>(runs_.size()) != options_.fail_run;
  runs_.push_back(false);
  states_.push_back(ok ? RunState::kCompleted : RunState::kError);
  if (!ok) return static_cast<int>(runs_.size() - 1);
  const Root &ar = roots_.at(a.root), &wr = roots_.at(w.root);
  pw.bytes.assign(wr.device.begin() + static_cast<long>(w.offset), wr.device.begin() + static_cast<long>(w.offset + w.bytes));
  std::vector<uint16_t> in(static_cast<size_t>(rows * spec.k)), out(static_cast<size_t>(rows * c_cols));
  std::memcpy(in.data(), ar.device.data() + a.offset, in.size() * 2);
  EmulateGemm(in.data(), rows, pw, out.data(), spec.rounding, nullptr, spec.epilogue);
  Root& cr = roots_.at(c.root);
  std::memcpy(cr.device.data() + c.offset, out.data(), out.size() * 2);
  cr.device_newer = true;
  return static_cast<int>(runs_.size() - 1);
}

RunState StandinXrt::Wait(int run) {
  if (run < 0 || static_cast<size_t>(run) >= runs_.size()) Violate("wait on a run never started");
  runs_[static_cast<size_t>(run)] = true;
  return states_[static_cast<size_t>(run)];
}

}  // namespace glance::kernels::npu
