#include "core/engine/engine_options.h"

namespace glance {
namespace {

template <typename Enum, size_t N>
std::optional<Enum> ParseName(const std::array<Enum, N>& all, std::string_view name) {
  for (Enum e : all)
    if (Name(e) == name) return e;
  return std::nullopt;
}

template <typename Enum, size_t N>
std::string JoinNames(const std::array<Enum, N>& all) {
  std::string out;
  for (Enum e : all) out += (out.empty() ? "" : ", ") + std::string(Name(e));
  return out;
}

}  // namespace

std::string_view Name(Precision p) {
  switch (p) {
    case Precision::kAuto: return "auto";
    case Precision::kF32: return "f32";
    case Precision::kBf16: return "bf16";
    case Precision::kQ8: return "q8";
    case Precision::kQ4: return "q4";
  }
  return "?";
}

std::string_view Name(BackendKind b) {
  switch (b) {
    case BackendKind::kAuto: return "auto";
    case BackendKind::kCpu: return "cpu";
    case BackendKind::kNpu: return "npu";
    case BackendKind::kNpuEmu: return "npu-emu";
  }
  return "?";
}

std::string_view Name(ImageMode m) { return m == ImageMode::kDetail ? "detail" : "fast"; }

std::optional<Precision> ParsePrecision(std::string_view name) { return ParseName(kPrecisions, name); }
std::optional<BackendKind> ParseBackend(std::string_view name) { return ParseName(kBackends, name); }
std::optional<ImageMode> ParseImageMode(std::string_view name) { return ParseName(kImageModes, name); }

std::string PrecisionNames() { return JoinNames(kPrecisions); }
std::string BackendNames() { return JoinNames(kBackends); }
std::string ImageModeNames() { return JoinNames(kImageModes); }

}  // namespace glance
