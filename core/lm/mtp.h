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
//
// The draft scores a reduced vocabulary (FR-Spec, Zhao et al. 2025, arXiv:2502.14856; EAGLE-3
// drafts over a reduced vocabulary too): the first n token ids only. Byte-level BPE ids follow
// the merge order, so the low ids are the frequent tokens. The verify still scores the whole
// vocabulary and decides, so greedy output does not change, and with sampling the acceptance
// rule (core/engine/speculative_sampling.h) holds for q = the softmax over those n ids; a
// token beyond them is simply never drafted. It pays because the head is the drafter's biggest
// matrix by far: Qwen3.5's 248320 × 2048 LM head is about 40 % of a decode step's weight
// bytes, and a draft reads only n of its rows.
#include <cstdint>
#include <span>

#include "core/lm/lm_weights.h"
#include "core/lm/state.h"
#include "kernels/backend.h"

namespace glance::lm {

// Default draft vocabulary: ids [0, 32768), an eighth of Qwen3.5's 248320.
constexpr int64_t kDefaultDraftVocab = 32768;

// Rows [0, n) of `head` as a view of the same storage (rows are contiguous in every weight
// format, scales included); all of it when n <= 0 or n >= head.rows.
kernels::WeightRef DraftHeadRows(const kernels::WeightRef& head, int64_t n);

// R rows: hidden [R][H], ids [R], rope cos/sin [R][rotary_dim] of the rows' positions.
// Appends R rows to st.kv (st.n_rows grows by R) and writes the normed outputs to out [R][H].
void MtpForward(const MtpWeights& m, const TextConfig& cfg, const kernels::WeightRef& embed,
                const float* hidden, std::span<const int64_t> ids, const float* cos,
                const float* sin, MtpState& st, float* out, const kernels::Compute& cx);

}  // namespace glance::lm
