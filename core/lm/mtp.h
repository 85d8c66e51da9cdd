#pragma once
// Qwen3.5's multi-token-prediction (MTP) module as a drafter for speculative decoding.
// Source: vLLM model_executor/models/qwen3_5_mtp.py (and qwen3_next_mtp.py), read to
// understand; the project's PyTorch twin tools/twin/model.py (class MTP, mtp_hidden) trains it.
//
// Row p (p >= 1) of the MTP takes the main model's final-normed hidden state at p-1 and the
// token at p, at token p's (M-RoPE) position, and predicts the token at p+1:
//   x = fc([rmsnorm_e(E[x_p]) | rmsnorm_h(h_{p-1})])    (embedding first, then hidden)
//   x = decoder layer (gated full attention + SwiGLU MLP) over the MTP's own KV cache
//   out = rmsnorm(x); logits = the main model's LM head(out)
// Chaining (k > 1 drafts) feeds `out` back as the next row's hidden, as vLLM does.
// Token embeddings are the plain E[x_p] even for image-pad rows, as the twin trains it.
#include <cstdint>
#include <span>

#include "core/lm/lm_weights.h"
#include "core/lm/state.h"
#include "kernels/backend.h"

namespace glance::lm {

// R rows: hidden [R][H], ids [R], rope cos/sin [R][rotary_dim] of the rows' positions.
// Appends R rows to st.kv (st.n_rows grows by R) and writes the normed outputs to out [R][H].
void MtpForward(const MtpWeights& m, const TextConfig& cfg, const kernels::WeightRef& embed,
                const float* hidden, std::span<const int64_t> ids, const float* cos,
                const float* sin, MtpState& st, float* out, const kernels::Compute& cx);

}  // namespace glance::lm
