"""A PyTorch twin of Qwen3.5 (`Qwen3_5ForConditionalGeneration`) in float32, trainable.

Follows the project's model spec (docs/qwen35.md sections 2-3 in the Glance docs; the public
source is Hugging Face transformers' models/qwen3_5/modeling_qwen3_5.py): vision tower with
learned + 2-D rotary positions and a 2x2 patch merger; a hybrid decoder of Gated DeltaNet and
gated full-attention layers with interleaved partial M-RoPE; an untied or tied head; and the
multi-token-prediction (MTP) module as vLLM's qwen3_5_mtp.py describes it.
Parameter names are the Hugging Face checkpoint's, so state_dict() is the checkpoint.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn


def rms_norm_1p(x, w, eps):
    """Qwen3.5's zero-centred RMSNorm: the weight is used as (1 + w)."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * (1.0 + w)


class RMSNorm1p(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(dim))
        self.eps = eps

    def forward(self, x):
        return rms_norm_1p(x, self.weight, self.eps)


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], dim=-1)


# ----------------------------------------------------------------------------------------- vision
class VisionBlock(nn.Module):
    def __init__(self, hidden, heads, inter):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(hidden, eps=1e-6)
        self.norm2 = nn.LayerNorm(hidden, eps=1e-6)
        self.attn = nn.Module()
        self.attn.qkv = nn.Linear(hidden, 3 * hidden)
        self.attn.proj = nn.Linear(hidden, hidden)
        self.mlp = nn.Module()
        self.mlp.linear_fc1 = nn.Linear(hidden, inter)
        self.mlp.linear_fc2 = nn.Linear(inter, hidden)

    def forward(self, h, cos, sin):
        B, N, C = h.shape
        dh = C // self.heads
        qkv = self.attn.qkv(self.norm1(h)).view(B, N, 3, self.heads, dh).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]                      # [B, heads, N, dh]
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        a = torch.softmax((q @ k.transpose(-1, -2)) / math.sqrt(dh), dim=-1)
        o = (a @ v).transpose(1, 2).reshape(B, N, C)
        h = h + self.attn.proj(o)
        return h + self.mlp.linear_fc2(F.gelu(self.mlp.linear_fc1(self.norm2(h)), approximate="tanh"))


class VisionTower(nn.Module):
    def __init__(self, vc):
        super().__init__()
        self.vc = vc
        C, P, Tp = vc["hidden_size"], vc["patch_size"], vc["temporal_patch_size"]
        self.patch_embed = nn.Module()
        self.patch_embed.proj = nn.Conv3d(vc["in_channels"], C, (Tp, P, P), (Tp, P, P))
        self.pos_embed = nn.Embedding(vc["num_position_embeddings"], C)
        self.blocks = nn.ModuleList(VisionBlock(C, vc["num_heads"], vc["intermediate_size"]) for _ in range(vc["depth"]))
        self.merger = nn.Module()
        m = vc["spatial_merge_size"] ** 2 * C
        self.merger.norm = nn.LayerNorm(C, eps=1e-6)
        self.merger.linear_fc1 = nn.Linear(m, m)
        self.merger.linear_fc2 = nn.Linear(m, vc["out_hidden_size"])
        self._cache = {}

    def _rows_cols(self, gh, gw):
        # Patch (row, col) in merge-block order: blocks raster, then the 2x2 inside (spec 3.5).
        m = self.vc["spatial_merge_size"]
        br, bc, ir, ic = torch.meshgrid(torch.arange(gh // m), torch.arange(gw // m), torch.arange(m), torch.arange(m), indexing="ij")
        return (br * m + ir).reshape(-1), (bc * m + ic).reshape(-1)

    def positions(self, gh, gw):
        """(interpolated learned pos-embed [N, C], rotary cos, sin [N, dh]) for a gh x gw patch grid."""
        rows, cols = self._rows_cols(gh, gw)
        side = int(round(self.vc["num_position_embeddings"] ** 0.5))
        # Bilinear, align_corners (spec 3.3): s = idx * (side-1)/(g-1).
        sy = rows.double() * (side - 1) / max(gh - 1, 1)
        sx = cols.double() * (side - 1) / max(gw - 1, 1)
        y0, x0 = sy.floor().long(), sx.floor().long()
        y1, x1 = (y0 + 1).clamp(max=side - 1), (x0 + 1).clamp(max=side - 1)
        dy, dx = (sy - y0).float()[:, None], (sx - x0).float()[:, None]
        T = self.pos_embed.weight
        pe = ((1 - dy) * (1 - dx) * T[y0 * side + x0] + (1 - dy) * dx * T[y0 * side + x1]
              + dy * (1 - dx) * T[y1 * side + x0] + dy * dx * T[y1 * side + x1])
        dh = self.vc["hidden_size"] // self.vc["num_heads"]
        inv = 1.0 / (10000.0 ** (torch.arange(0, dh // 2, 2, dtype=torch.float32) / (dh // 2)))
        a = torch.cat([rows[:, None].float() * inv, cols[:, None].float() * inv], dim=-1)
        ang = torch.cat([a, a], dim=-1)
        return pe, ang.cos(), ang.sin()

    def window_pe(self, gh, gw, tokens):
        """The learned positions of windows cut from a gh x gw patch grid: tokens [B, n] are merged
        tokens of that grid (raster, in each window's merge-block order) -> [B, 4n, C], the rows
        those tokens' patches have in the whole grid (a crop keeps its place's positions)."""
        pe, _, _ = self.positions(gh, gw)
        m = self.vc["spatial_merge_size"] ** 2
        return pe.view(-1, m, pe.shape[-1])[tokens].flatten(1, 2)

    def forward(self, pixel_values, gh, gw, pe=None):
        """pixel_values [B, N, 1536] (N = gh*gw patches, merge-block order) -> [B, N/4, out].
        pe: learned positions to use instead of the gh x gw grid's ([N, C] or [B, N, C], e.g.
        window_pe for crops; the rotary positions stay the gh x gw grid's)."""
        B, N, _ = pixel_values.shape
        W = self.patch_embed.proj.weight
        h = pixel_values @ W.view(W.shape[0], -1).t() + self.patch_embed.proj.bias
        own_pe, cos, sin = self.positions(gh, gw)
        h = h + (own_pe if pe is None else pe)
        for blk in self.blocks:
            h = blk(h, cos, sin)
        h = self.merger.norm(h).reshape(B, N // 4, -1)
        return self.merger.linear_fc2(F.gelu(self.merger.linear_fc1(h)))

    def forward_trace(self, pixel_values, gh, gw):
        """Intermediates for checking against the golden (batch 1)."""
        W = self.patch_embed.proj.weight
        e = pixel_values @ W.view(W.shape[0], -1).t() + self.patch_embed.proj.bias
        pe, cos, sin = self.positions(gh, gw)
        t = {"patch_embed": e, "pos_embed_interp": pe}
        h = (e + pe)[None]
        t["block0_in"] = h[0]
        for j, blk in enumerate(self.blocks):
            h = blk(h, cos, sin)
            t[f"block{j}_out"] = h[0]
        t["image_embeds"] = self.forward(pixel_values[None], gh, gw)[0]
        return t


# ---------------------------------------------------------------------------------- gated deltanet
def chunk_gated_delta_rule(q, k, v, g, beta, chunk=64, state=None):
    """Gated delta rule, chunked (spec 2.7 item 7; Yang et al., "Gated Delta Networks", 2024).

    q, k [B, H, T, dk] (l2-normalised, q already scaled), v [B, H, T, dv], g (log decay <= 0) and
    beta [B, H, T]. Returns (o [B, H, T, dv], final state [B, H, dk, dv]). Differentiable; the
    triangular systems are solved with torch.linalg.solve_triangular instead of a row loop.
    """
    B, H, T, dk = k.shape
    dv = v.shape[-1]
    pad = (-T) % chunk
    if pad:  # zero padding leaves the state unchanged (beta = g = 0)
        q, k, v = (F.pad(x, (0, 0, 0, pad)) for x in (q, k, v))
        g, beta = F.pad(g, (0, pad)), F.pad(beta, (0, pad))
    S = torch.zeros(B, H, dk, dv, dtype=q.dtype) if state is None else state
    n = q.shape[2] // chunk
    eye = torch.eye(chunk, dtype=q.dtype)
    lower_incl = torch.ones(chunk, chunk, dtype=torch.bool).tril()
    outs = []
    for c in range(n):
        sl = slice(c * chunk, (c + 1) * chunk)
        qc, kc, vc, gc, bc = q[:, :, sl], k[:, :, sl], v[:, :, sl], g[:, :, sl], beta[:, :, sl]
        G = gc.cumsum(-1)                                            # Γ_i
        diff = (G[..., :, None] - G[..., None, :]).masked_fill(~lower_incl, -float("inf"))
        decay = diff.exp()                                           # exp(Γ_i − Γ_j), j <= i
        kb = kc * bc[..., None]
        A = (kb @ kc.transpose(-1, -2)) * decay * (1 - eye)          # strictly lower
        L = eye + A
        U = torch.linalg.solve_triangular(L, vc * bc[..., None], upper=False, unitriangular=True)
        Wk = torch.linalg.solve_triangular(L, kb * G.exp()[..., None], upper=False, unitriangular=True)
        Vnew = U - Wk @ S
        M = (qc @ kc.transpose(-1, -2)) * decay
        outs.append((qc * G.exp()[..., None]) @ S + M @ Vnew)
        Glast = G[..., -1:]
        S = Glast.exp()[..., None] * S + (kc * (Glast - G).exp()[..., None]).transpose(-1, -2) @ Vnew
    o = torch.cat(outs, dim=2)[:, :, :T]
    return o, S


def l2norm(x, eps=1e-6):
    return x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + eps)


class GatedDeltaNet(nn.Module):
    def __init__(self, tc):
        super().__init__()
        H = tc["hidden_size"]
        self.nk, self.nv = tc["linear_num_key_heads"], tc["linear_num_value_heads"]
        self.dk, self.dv = tc["linear_key_head_dim"], tc["linear_value_head_dim"]
        self.eps = tc["rms_norm_eps"]
        Kd, Vd = self.nk * self.dk, self.nv * self.dv
        self.conv_dim = 2 * Kd + Vd
        self.in_proj_qkv = nn.Linear(H, self.conv_dim, bias=False)
        self.in_proj_z = nn.Linear(H, Vd, bias=False)
        self.in_proj_b = nn.Linear(H, self.nv, bias=False)
        self.in_proj_a = nn.Linear(H, self.nv, bias=False)
        self.conv1d = nn.Conv1d(self.conv_dim, self.conv_dim, tc["linear_conv_kernel_dim"], groups=self.conv_dim, bias=False)
        self.A_log = nn.Parameter(torch.zeros(self.nv))
        self.dt_bias = nn.Parameter(torch.ones(self.nv))
        self.norm = nn.Module()
        self.norm.weight = nn.Parameter(torch.ones(self.dv))
        self.out_proj = nn.Linear(Vd, H, bias=False)

    def forward(self, x, trace=None):
        B, T, _ = x.shape
        m = self.in_proj_qkv(x)
        z, b, a = self.in_proj_z(x), self.in_proj_b(x), self.in_proj_a(x)
        if trace is not None:
            trace.update(in_proj_qkv=m, in_proj_z=z, in_proj_b=b, in_proj_a=a)
        K = self.conv1d.weight.shape[-1]
        y = F.silu(F.conv1d(F.pad(m.transpose(1, 2), (K - 1, 0)), self.conv1d.weight, groups=self.conv_dim)).transpose(1, 2)
        Kd = self.nk * self.dk
        q = y[..., :Kd].reshape(B, T, self.nk, self.dk)
        k = y[..., Kd:2 * Kd].reshape(B, T, self.nk, self.dk)
        v = y[..., 2 * Kd:].reshape(B, T, self.nv, self.dv)
        beta = torch.sigmoid(b)
        g = -self.A_log.exp() * F.softplus(a + self.dt_bias)
        r = self.nv // self.nk  # value head h reads key head h // r (grouped)
        q = l2norm(q).repeat_interleave(r, dim=2) / math.sqrt(self.dk)
        k = l2norm(k).repeat_interleave(r, dim=2)
        o, _ = chunk_gated_delta_rule(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                      g.transpose(1, 2), beta.transpose(1, 2))
        o = o.transpose(1, 2)                                           # [B, T, nv, dv]
        n = o * torch.rsqrt(o.pow(2).mean(-1, keepdim=True) + self.eps) * self.norm.weight
        n = n * F.silu(z.view(B, T, self.nv, self.dv))                   # norm, then gate
        if trace is not None:
            trace.update(core_attn_out=o, gated_norm_out=n)
        return self.out_proj(n.reshape(B, T, -1))


# -------------------------------------------------------------------------------- gated attention
def mrope_cos_sin(positions, tc):
    """positions [B, 3, T] (t, h, w) -> cos, sin [B, T, rotary_dim] (interleaved M-RoPE, spec 2.6)."""
    rp = tc.get("rope_parameters") or tc.get("rope_scaling") or {}
    theta = rp.get("rope_theta", tc.get("rope_theta", 1e7))
    rd = int(tc["head_dim"] * rp.get("partial_rotary_factor", tc.get("partial_rotary_factor", 0.25)))
    sec = rp.get("mrope_section", [11, 11, 10])
    j = torch.arange(rd // 2)
    inv = 1.0 / (theta ** (torch.arange(0, rd, 2, dtype=torch.float32) / rd))
    axis = torch.zeros(rd // 2, dtype=torch.long)              # 0 = T
    axis[(j % 3 == 1) & (j < 3 * sec[1])] = 1                  # H
    axis[(j % 3 == 2) & (j < 3 * sec[2])] = 2                  # W
    p = positions.float()                                      # [B, 3, T]
    sel = p[:, axis, :]                                        # [B, rd/2, T]
    phi = sel.transpose(1, 2) * inv                            # [B, T, rd/2]
    ang = torch.cat([phi, phi], dim=-1)
    return ang.cos(), ang.sin()


class GatedAttention(nn.Module):
    def __init__(self, tc):
        super().__init__()
        H, D = tc["hidden_size"], tc["head_dim"]
        self.nq, self.nkv, self.D = tc["num_attention_heads"], tc["num_key_value_heads"], D
        self.q_proj = nn.Linear(H, 2 * self.nq * D, bias=False)
        self.k_proj = nn.Linear(H, self.nkv * D, bias=False)
        self.v_proj = nn.Linear(H, self.nkv * D, bias=False)
        self.o_proj = nn.Linear(self.nq * D, H, bias=False)
        self.q_norm = RMSNorm1p(D, tc["rms_norm_eps"])
        self.k_norm = RMSNorm1p(D, tc["rms_norm_eps"])

    def forward(self, x, cos, sin, trace=None):
        B, T, _ = x.shape
        P = self.q_proj(x).view(B, T, self.nq, 2 * self.D)
        query, gate = P[..., :self.D], P[..., self.D:].reshape(B, T, -1)
        kp, vp = self.k_proj(x), self.v_proj(x)
        q = self.q_norm(query).transpose(1, 2)                           # [B, nq, T, D]
        k = self.k_norm(kp.view(B, T, self.nkv, self.D)).transpose(1, 2)
        v = vp.view(B, T, self.nkv, self.D).transpose(1, 2)
        rd = cos.shape[-1]
        c, s = cos[:, None], sin[:, None]
        q = torch.cat([q[..., :rd] * c + rotate_half(q[..., :rd]) * s, q[..., rd:]], dim=-1)
        k = torch.cat([k[..., :rd] * c + rotate_half(k[..., :rd]) * s, k[..., rd:]], dim=-1)
        rep = self.nq // self.nkv
        kr, vr = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
        scores = (q @ kr.transpose(-1, -2)) / math.sqrt(self.D)
        causal = torch.ones(T, T, dtype=torch.bool).triu(1)
        attn = torch.softmax(scores.masked_fill(causal, -float("inf")), dim=-1)
        o = (attn @ vr).transpose(1, 2).reshape(B, T, -1) * torch.sigmoid(gate)
        if trace is not None:
            trace.update(q_proj=P.reshape(B, T, -1), k_proj=kp, v_proj=vp, o_proj_in=o, attn=attn, keys=k, values=v)
        return self.o_proj(o)


# ------------------------------------------------------------------------------------ decoder
class DecoderLayer(nn.Module):
    def __init__(self, tc, kind):
        super().__init__()
        H, I, eps = tc["hidden_size"], tc["intermediate_size"], tc["rms_norm_eps"]
        self.kind = kind
        if kind == "linear_attention":
            self.linear_attn = GatedDeltaNet(tc)
        else:
            self.self_attn = GatedAttention(tc)
        self.input_layernorm = RMSNorm1p(H, eps)
        self.post_attention_layernorm = RMSNorm1p(H, eps)
        self.mlp = nn.Module()
        self.mlp.gate_proj = nn.Linear(H, I, bias=False)
        self.mlp.up_proj = nn.Linear(H, I, bias=False)
        self.mlp.down_proj = nn.Linear(I, H, bias=False)

    def forward(self, x, cos, sin, trace=None):
        u = self.input_layernorm(x)
        if self.kind == "linear_attention":
            h = x + self.linear_attn(u, trace)
        else:
            mix = self.self_attn(u, cos, sin, trace)
            if trace is not None:
                trace["self_attn_out"] = mix
            h = x + mix
        u = self.post_attention_layernorm(h)
        return h + self.mlp.down_proj(F.silu(self.mlp.gate_proj(u)) * self.mlp.up_proj(u))


class LanguageModel(nn.Module):
    def __init__(self, tc):
        super().__init__()
        self.embed_tokens = nn.Embedding(tc["vocab_size"], tc["hidden_size"])
        self.layers = nn.ModuleList(DecoderLayer(tc, kind) for kind in tc["layer_types"])
        self.norm = RMSNorm1p(tc["hidden_size"], tc["rms_norm_eps"])


class MTP(nn.Module):
    """Multi-token prediction (vLLM qwen3_5_mtp.py): from the main model's final-normed hidden
    state h_t and the embedding of token t+1, predict token t+2:
    fc([norm_e(E[x_{t+1}]) | norm_h(h_t)]) -> one full-attention decoder layer -> norm -> shared head."""

    def __init__(self, tc):
        super().__init__()
        H, eps = tc["hidden_size"], tc["rms_norm_eps"]
        self.pre_fc_norm_embedding = RMSNorm1p(H, eps)
        self.pre_fc_norm_hidden = RMSNorm1p(H, eps)
        self.fc = nn.Linear(2 * H, H, bias=False)
        self.layers = nn.ModuleList([DecoderLayer(tc, "full_attention")])
        self.norm = RMSNorm1p(H, eps)

    def forward(self, next_embeds, hidden, cos, sin):
        x = self.fc(torch.cat([self.pre_fc_norm_embedding(next_embeds), self.pre_fc_norm_hidden(hidden)], dim=-1))
        return self.norm(self.layers[0](x, cos, sin))


class Qwen35(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        tc, vc = config["text_config"], config["vision_config"]
        self.tc = tc
        self.model = nn.Module()
        self.model.visual = VisionTower(vc)
        self.model.language_model = LanguageModel(tc)
        self.tied = bool(config.get("tie_word_embeddings", tc.get("tie_word_embeddings", False)))
        if not self.tied:
            self.lm_head = nn.Linear(tc["hidden_size"], tc["vocab_size"], bias=False)
        self.mtp = MTP(tc) if tc.get("mtp_num_hidden_layers", 0) > 0 else None
        self.image_token_id = config["image_token_id"]

    def head(self, x):
        w = self.model.language_model.embed_tokens.weight if self.tied else self.lm_head.weight
        return x @ w.t()

    def embed(self, ids, image_embeds):
        """ids [B, T]; image_embeds [B, n, H] replace the <|image_pad|> rows in order."""
        x = self.model.language_model.embed_tokens(ids)
        if image_embeds is not None:
            mask = ids == self.image_token_id
            x = x.masked_scatter(mask[..., None], image_embeds.to(x.dtype).reshape(-1, x.shape[-1]))
        return x

    def decode_layers(self, x, positions, traces=None):
        cos, sin = mrope_cos_sin(positions, self.tc)
        for i, layer in enumerate(self.model.language_model.layers):
            x = layer(x, cos, sin, None if traces is None else traces[i])
            if traces is not None:
                traces[i]["out"] = x
        return x, cos, sin

    def forward(self, ids, positions, image_embeds, traces=None):
        """-> (final-normed hidden [B, T, H], cos, sin). Logits = head(hidden)."""
        x = self.embed(ids, image_embeds)
        x, cos, sin = self.decode_layers(x, positions, traces)
        return self.model.language_model.norm(x), cos, sin

    def mtp_hidden(self, ids, hidden, positions):
        """MTP rows t = 0..T-2 (predicting ids[t+2]) from hidden[t] and ids[t+1], at ids[t+1]'s positions."""
        cos, sin = mrope_cos_sin(positions[:, :, 1:], self.tc)
        nxt = self.model.language_model.embed_tokens(ids[:, 1:])
        return self.mtp(nxt, hidden[:, :-1], cos, sin)


# --------------------------------------------------------------------------------- positions
def mrope_positions(ids, image_token_id, grid_hw):
    """HF get_rope_index for one sequence with images of merged grid (mh, mw) each (spec 2.6).
    Returns (positions [3, T] int64, rope_delta)."""
    T = len(ids)
    pos = torch.zeros(3, T, dtype=torch.long)
    cur, i, img = 0, 0, 0
    while i < T:
        if ids[i] == image_token_id:
            mh, mw = grid_hw[img]
            img += 1
            r, c = torch.meshgrid(torch.arange(mh), torch.arange(mw), indexing="ij")
            n = mh * mw
            pos[0, i:i + n] = cur
            pos[1, i:i + n] = cur + r.reshape(-1)
            pos[2, i:i + n] = cur + c.reshape(-1)
            cur += max(mh, mw)
            i += n
        else:
            pos[:, i] = cur
            cur += 1
            i += 1
    return pos, int(pos.max()) + 1 - T


def patchify(img_u8, patch=16, temporal=2, merge=2):
    """HWC uint8 numpy image whose sides are multiples of 32 (no resize) -> pixel_values [N, 1536]
    in merge-block order, columns (c, t, y, x) (spec section 4, step 6); (x/255 - 0.5)/0.5."""
    x = torch.from_numpy(img_u8).float().permute(2, 0, 1) / 255.0
    x = (x - 0.5) / 0.5                                               # [C, h, w]
    C, h, w = x.shape
    gh, gw = h // patch, w // patch
    x = x[None].expand(temporal, C, h, w)                             # identical temporal copies
    x = x.reshape(temporal, C, gh // merge, merge, patch, gw // merge, merge, patch)
    # -> (br, bc, ir, ic, c, t, y, x)
    x = x.permute(2, 5, 3, 6, 1, 0, 4, 7)
    return x.reshape(gh * gw, C * temporal * patch * patch), gh, gw
