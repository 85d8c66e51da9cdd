#pragma once
// The weight format an engine runs, as a type (parsed from its name once, at the settings and
// flags: core/engine/engine_options.h). Here, below the engine, because the weights act on it
// (PrecisionPlan::For, core/model/prepared_weights.h says what each does to which tensor).

namespace glance {

enum class Precision {
  kAuto,  // resolved at load: a compressed-tensors checkpoint keeps its own int4, others get
          // kAutoQuantization (engine.cpp ResolvePrecision)
  kF32,   // every matrix as stored (bf16 widened exactly): the reference path
  kBf16,
  kQ8,
  kQ4,
};

}  // namespace glance
