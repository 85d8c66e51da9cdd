#pragma once
// The reference check in a quantized precision (glance-cli check --precision q8|q4|bf16): the
// f32 logits gates cannot hold there, so this measures how far the quantized model is from
// the float32 reference (the golden Hugging Face logits, which the f32 path matches to 1e-3),
// teacher-forced over the golden prompt and decode steps:
//   - top-1 agreement: argmax equal to the reference's, at every prefill position and step
//   - KL(P_ref ‖ P_quant) of the softmaxed logits, mean and max over those rows
//   - greedy decode: the decode steps' argmax equal to the golden tokens
// with gates per precision set from measurement (gate_table.cpp), and a negative control
// (the KL of one reference step against the next must exceed twice the mean-KL gate).
#include <functional>
#include <string>

#include "core/checks/reference_check.h"

namespace glance::checks {

CheckReport RunPrecisionCheck(const std::string& dir, const CheckOptions& options,
                              const std::function<void(const GateResult&)>& on_gate);

}  // namespace glance::checks
