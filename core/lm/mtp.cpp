#include "core/lm/mtp.h"

#include <vector>

#include "core/lm/decoder_layer.h"
#include "core/lm/norms.h"

namespace glance::lm {

kernels::WeightRef DraftHeadRows(const kernels::WeightRef& head, int64_t n) {
  kernels::WeightRef rows = head;
  if (n > 0 && n < head.rows) rows.rows = n;
  return rows;
}

void MtpForward(const MtpWeights& m, const TextConfig& cfg, const kernels::WeightRef& embed,
                const float* hidden, std::span<const int64_t> ids, const float* cos,
                const float* sin, MtpState& st, float* out, const kernels::Compute& cx) {
  const int64_t R = static_cast<int64_t>(ids.size()), H = cfg.hidden_size;
  if (R == 0) return;
  const float eps = static_cast<float>(cfg.rms_norm_eps);
  // [R][2H]: normed embedding | normed hidden (vLLM: torch.cat([inputs_embeds, hidden_states])).
  std::vector<float> cat(static_cast<size_t>(R * 2 * H)), e(static_cast<size_t>(H));
  for (int64_t r = 0; r < R; ++r) {
    embed.row_to_f32(ids[static_cast<size_t>(r)], e.data());
    RmsNormRow(e.data(), H, m.pre_fc_norm_embedding.data(), eps, cat.data() + r * 2 * H);
    RmsNormRow(hidden + r * H, H, m.pre_fc_norm_hidden.data(), eps, cat.data() + r * 2 * H + H);
  }
  std::vector<float> x(static_cast<size_t>(R * H)), h(x.size()), y(x.size());
  cx.Project(cat.data(), R, m.fc, nullptr, x.data());
  LayerContext ctx;
  ctx.layer_index = cfg.num_hidden_layers;  // after the main layers (never observed)
  ctx.kv = &st.kv;
  ctx.n_past = st.n_rows;
  ctx.cos = cos;
  ctx.sin = sin;
  DecoderLayerForward(m.layer, cfg, x.data(), R, ctx, h.data(), y.data(), cx);
  st.n_rows += R;
  for (int64_t r = 0; r < R; ++r) RmsNormRow(x.data() + r * H, H, m.norm.data(), eps, out + r * H);
}

}  // namespace glance::lm
