#pragma once
// The reference check through an NPU backend (glance-cli check --backend npu-emu|npu): the f32
// gates cannot hold with bf16 activations and bfp16ebs8 weights, so this reports the accuracy
// the NPU numerics give against the Hugging Face golden — vision cosine, prefill logits cosine
// and top-1 agreement, teacher-forced decode and second-turn agreement — with gates set from
// measurement (gate_table.cpp), a negative control, and a check that the NPU kernels really ran.
#include <functional>
#include <string>

#include "core/checks/reference_check.h"

namespace glance::checks {

CheckReport RunNpuCheck(const std::string& dir, const CheckOptions& options,
                        const std::function<void(const GateResult&)>& on_gate);

}  // namespace glance::checks
