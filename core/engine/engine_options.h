#pragma once
// The engine's options as types. Names ("q4", "npu-emu", "detail") are parsed once, where they
// enter (the settings registry, glance-cli's flags, a saved conversation), and printed back
// with Name(); everything between carries the enums, down to the layer that acts on each
// (Precision: core/model/precision.h, PrecisionPlan::For; BackendKind: core/npu/backend_kind.h,
// SelectBackend; ImageMode: core/vision/image_preprocessor.h).
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "core/model/precision.h"
#include "core/npu/backend_kind.h"
#include "core/vision/image_preprocessor.h"

namespace glance {


// What Precision::kAuto gives a checkpoint stored as bf16/f16/f32: the measured best trade of
// speed and agreement with the reference (figures in engine.cpp ResolvePrecision).
inline constexpr Precision kAutoQuantization = Precision::kQ8;


using vision::ImageMode;  // kFast: 224x224, 49 tokens; kDetail: the checkpoint's smart_resize

inline constexpr std::array<Precision, 5> kPrecisions = {Precision::kAuto, Precision::kF32, Precision::kBf16,
                                                         Precision::kQ8, Precision::kQ4};
inline constexpr std::array<BackendKind, 4> kBackends = {BackendKind::kAuto, BackendKind::kCpu, BackendKind::kNpu,
                                                         BackendKind::kNpuEmu};
inline constexpr std::array<ImageMode, 2> kImageModes = {ImageMode::kFast, ImageMode::kDetail};

std::string_view Name(Precision p);    // "auto", "f32", "bf16", "q8", "q4"
std::string_view Name(BackendKind b);  // "auto", "cpu", "npu", "npu-emu"
std::string_view Name(ImageMode m);    // "fast", "detail"

// nullopt on an unknown name; callers say which flag or file it came from.
std::optional<Precision> ParsePrecision(std::string_view name);
std::optional<BackendKind> ParseBackend(std::string_view name);
std::optional<ImageMode> ParseImageMode(std::string_view name);

// "f32, bf16, q8, q4"-style lists of every name, for error messages and help texts.
std::string PrecisionNames();
std::string BackendNames();
std::string ImageModeNames();

struct EngineOptions {
  int threads = 0;  // 0 = one per core
  BackendKind backend = BackendKind::kAuto;
  // NPU bundle folder (manifest.txt, tensors.bin, kernels/). Empty: $GLANCE_NPU_BUNDLE, else
  // <model>/npu-bundle if present; npu-emu without one packs the checkpoint at load.
  std::string npu_bundle;
  Precision precision = Precision::kAuto;
};

}  // namespace glance
