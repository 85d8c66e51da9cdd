#pragma once
// Where the projections run, as a type (parsed from its name once, at the settings and flags:
// core/engine/engine_options.h). Here, below the engine, because the backend choice acts on it
// (SelectBackend, core/npu/backend_select.h says what each does).

namespace glance {

enum class BackendKind { kAuto, kCpu, kNpu, kNpuEmu };

}  // namespace glance
