// What guarding the mapped weights against in-place changes costs (issue 12 item 2), against the
// alternative of copying them into owned memory at load. Not a test; run by hand:
//   build/<dir>/tests/model/bench_weights_on_disk MODEL_DIR
// Prints: time to open the folder (headers only, mmap), the cost of one CheckUnchanged (the
// per-turn check Glance does), and the time and resident memory an owned copy of every weight
// file would take (what a private copy at load would cost on every load).
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "core/model/safetensors.h"

namespace {

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// VmRSS of this process, in MiB.
double RssMiB() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bench_weights_on_disk MODEL_DIR\n");
    return 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  const glance::TensorStore store = glance::TensorStore::OpenFolder(argv[1]);
  std::printf("open (headers, mmap):        %.3f s, RSS %.0f MiB\n", Seconds(t0), RssMiB());

  constexpr int kChecks = 100000;
  t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kChecks; ++i) store.CheckUnchanged();
  std::printf("CheckUnchanged (per turn):   %.2f us per call (%zu file(s))\n", Seconds(t0) / kChecks * 1e6,
              store.files().size());

  uint64_t total = 0;
  for (const auto& f : store.files()) total += f->file_size();
  const double rss_before = RssMiB();
  t0 = std::chrono::steady_clock::now();
  std::unique_ptr<char[]> copy(new char[total]);
  uint64_t at = 0;
  for (const auto& f : store.files()) {
    const int fd = ::open(f->path().c_str(), O_RDONLY | O_CLOEXEC);
    uint64_t done = 0;
    while (done < f->file_size()) {
      const ssize_t n = ::pread(fd, copy.get() + at + done, f->file_size() - done, static_cast<off_t>(done));
      if (n <= 0) break;
      done += static_cast<uint64_t>(n);
    }
    ::close(fd);
    at += done;
  }
  std::printf("owned copy (alternative):    %.2f s for %.2f GB, RSS +%.0f MiB (not reclaimable)\n", Seconds(t0),
              static_cast<double>(total) / 1e9, RssMiB() - rss_before);
  return 0;
}
