#include "core/lm/decoder_layer.h"

#include "core/lm/mlp.h"
#include "core/lm/norms.h"

namespace glance::lm {

void DecoderLayerForward(const LayerWeights& L, const TextConfig& cfg, float* x, int64_t T,
                         const LayerContext& ctx, float* h, float* y, const kernels::Compute& cx) {
  const int64_t H = cfg.hidden_size, n = T * H;
  const float eps = static_cast<float>(cfg.rms_norm_eps);
  for (int64_t t = 0; t < T; ++t) RmsNormRow(x + t * H, H, L.input_norm.data(), eps, h + t * H);
  if (L.type == LayerType::kLinearAttention) {
    GatedDeltaNetForward(L.linear, cfg, h, T, *ctx.linear, y, ctx.delta_rule, cx, ctx.linear_trace,
                         ctx.linear_after_rows, ctx.hidden);
  } else {
    ctx.kv->Reserve(ctx.n_past + T, ctx.n_past);
    GatedAttentionForward(L.full, cfg, ctx.layer_index, h, T, ctx.cos, ctx.sin, *ctx.kv, ctx.n_past, y, cx,
                          ctx.observer, ctx.attn_trace);
  }
  for (int64_t i = 0; i < n; ++i) x[i] += y[i];
  for (int64_t t = 0; t < T; ++t) RmsNormRow(x + t * H, H, L.post_norm.data(), eps, h + t * H);
  MlpForward(L.mlp, h, T, y, cx);
  for (int64_t i = 0; i < n; ++i) x[i] += y[i];
}

}  // namespace glance::lm
