#pragma once
// The tensor list of a Qwen3.5 checkpoint for a given config (qwen35.md §1.5): every name and
// shape the HF model loads, and the dtype the released checkpoints store (BF16, A_log F32).
// `mtp.*` (multi-token prediction) tensors are listed apart (Qwen35MtpTensorManifest): HF
// ignores them on load; Glance's speculative decoding drafts with them (core/lm/mtp.h).
#include <vector>

#include "core/model/config.h"
#include "core/model/safetensors_writer.h"

namespace glance {

// Vision tower (`model.visual.*`), then the LM (`model.language_model.*`), then `lm_head.weight`
// when the embeddings are not tied.
std::vector<TensorSpec> Qwen35TensorManifest(const ModelConfig& config);

// The MTP module's tensors (`mtp.*`, one full-attention decoder layer; vLLM qwen3_5_mtp.py),
// as the released checkpoints store them (BF16).
std::vector<TensorSpec> Qwen35MtpTensorManifest(const ModelConfig& config);

}  // namespace glance
