#!/usr/bin/env python3
"""Checks the twin against Hugging Face's own numbers in a golden folder (tests/data/tiny-a):
pixel values from image.png, vision intermediates and embeddings, M-RoPE positions, every
prefill logit, the layer internals, 24 greedy tokens and the turn-2 continuation; also the
tokenizer on the ASCII tokenizer cases. float32 throughout; gate 1e-4 (max abs).

Exit codes: 0 pass, 1 fail, 77 skipped (no torch/numpy/PIL here; install with install-deps.sh).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import deps  # noqa: E402

deps.require()
import numpy as np  # noqa: E402
import torch  # noqa: E402
from PIL import Image  # noqa: E402

import safetensors_io  # noqa: E402
from checkpoint import load_model  # noqa: E402
from model import chunk_gated_delta_rule, mrope_positions, patchify  # noqa: E402
from text import Tokenizer  # noqa: E402

GATE = 1e-4


def main(folder):
    torch.set_num_threads(min(2, torch.get_num_threads()))
    torch.manual_seed(0)
    model, config = load_model(folder)
    model.eval()
    G = safetensors_io.load(os.path.join(folder, "golden.safetensors"))
    failures = []

    def check(name, got, want, gate=GATE):
        d = (got.detach().float() - want.float()).abs().max().item()
        ok = d <= gate
        print(f"{'ok  ' if ok else 'FAIL'} {name:44s} max abs diff {d:.3e} (gate {gate:g})")
        if not ok:
            failures.append(name)

    def check_equal(name, got, want):
        ok = list(map(int, got)) == list(map(int, want))
        print(f"{'ok  ' if ok else 'FAIL'} {name:44s} {'equal' if ok else f'{list(map(int, got))} != {list(map(int, want))}'}")
        if not ok:
            failures.append(name)

    # Negative control: the comparison must be able to fail.
    neg = (G["decode.logits"][1] - G["decode.logits"][0]).abs().max().item()
    print(f"     negative control: decode logits step 1 vs step 0 differ by {neg:.2f} (must be >> gate)")
    if neg <= 100 * GATE:
        failures.append("negative control")

    img = np.array(Image.open(os.path.join(folder, "image.png")).convert("RGB"))
    pv, gh, gw = patchify(img)
    check("pixel_values (from image.png)", pv, G["pixel_values"], 1e-6)
    pv = G["pixel_values"]
    with torch.no_grad():
        vt = model.model.visual.forward_trace(pv, gh, gw)
        for key in ("patch_embed", "pos_embed_interp", "block0_in", "block0_out", f"block{len(model.model.visual.blocks) - 1}_out", "image_embeds"):
            check(f"vision.{key}", vt[key], G[f"vision.{key}"])
        ids = G["prompt.input_ids"]
        grid = [(gh // 2, gw // 2)]
        pos, delta = mrope_positions(ids.tolist(), config["image_token_id"], grid)
        check_equal("prompt.position_ids (flattened)", pos.reshape(-1), G["prompt.position_ids"].reshape(-1))
        check_equal("prompt.rope_deltas", [delta], G["prompt.rope_deltas"])
        image_embeds = G["vision.image_embeds"][None]
        traces = [dict() for _ in model.model.language_model.layers]
        x = model.embed(ids[None], image_embeds)
        check("prefill.inputs_embeds", x[0], G["prefill.inputs_embeds"])
        hidden, _, _ = model.forward(ids[None], pos[None], image_embeds, traces)
        logits = model.head(hidden)[0]
        check("prefill.logits (every position)", logits, G["prefill.logits"])
        check("prefill.layer_out_last_pos", torch.stack([t["out"][0, -1] for t in traces]), G["prefill.layer_out_last_pos"])
        check("prefill.final_norm_last_pos", hidden[0, -1], G["prefill.final_norm_last_pos"])
        t0 = traces[0]
        for key in ("in_proj_qkv", "in_proj_z", "in_proj_b", "in_proj_a", "core_attn_out", "gated_norm_out"):
            check(f"prefill.layer0.linear_attn.{key}", t0[key][0], G[f"prefill.layer0.linear_attn.{key}"])
        full = [i for i, k in enumerate(config["text_config"]["layer_types"]) if k == "full_attention"]
        f0 = full[0]
        for key in ("q_proj", "k_proj", "v_proj", "o_proj_in"):
            check(f"prefill.layer{f0}.self_attn.{key}", traces[f0][key][0], G[f"prefill.layer{f0}.self_attn.{key}"])
        check(f"prefill.layer{f0}.self_attn_out", traces[f0]["self_attn_out"][0], G[f"prefill.layer{f0}.self_attn_out"])
        for li in full:
            check(f"prefill.attn_last_pos.layer{li}", traces[li]["attn"][0, :, -1], G[f"prefill.attn_last_pos.layer{li}"])
            check(f"prefill.cache.layer{li}.keys", traces[li]["keys"][0], G[f"prefill.cache.layer{li}.keys"])

        # Greedy decode by full recomputation (positions continue as text, = cache length + rope delta).
        def greedy(seq, n):
            toks, rows = [], []
            seq = list(seq)
            for _ in range(n):
                p, _ = mrope_positions(seq, config["image_token_id"], grid)
                h, _, _ = model.forward(torch.tensor([seq]), p[None], image_embeds)
                row = model.head(h[:, -1])[0]
                rows.append(row)
                toks.append(int(row.argmax()))
                seq.append(toks[-1])
            return toks, torch.stack(rows)

        toks, rows = greedy(ids.tolist(), len(G["decode.tokens"]))
        check_equal("decode.tokens (greedy)", toks, G["decode.tokens"])
        check("decode.logits (every step)", rows, G["decode.logits"])
        t2 = G["turn2.input_ids"].tolist()
        toks2, rows2 = greedy(t2, len(G["turn2.tokens"]))
        check("turn2.scratch_next_logits", rows2[0], G["turn2.scratch_next_logits"])
        check_equal("turn2.tokens (greedy)", toks2, G["turn2.tokens"])
        check("turn2.logits (every step)", rows2, G["turn2.logits"])

        # The chunked delta rule against the plain recurrence (spec 2.7 item 6), chunk 16 with state.
        gen = torch.Generator().manual_seed(1)
        B, H, T, dk, dv = 2, 3, 40, 8, 6
        q = torch.nn.functional.normalize(torch.randn(B, H, T, dk, generator=gen), dim=-1)
        k = torch.nn.functional.normalize(torch.randn(B, H, T, dk, generator=gen), dim=-1)
        v = torch.randn(B, H, T, dv, generator=gen)
        g = -torch.rand(B, H, T, generator=gen)
        beta = torch.rand(B, H, T, generator=gen)
        S0 = torch.randn(B, H, dk, dv, generator=gen)
        o, S = chunk_gated_delta_rule(q, k, v, g, beta, chunk=16, state=S0.clone())
        Sr, outs = S0.clone(), []
        for t in range(T):
            Sr = Sr * g[:, :, t, None, None].exp()
            e = (Sr * k[:, :, t, :, None]).sum(-2)
            Sr = Sr + k[:, :, t, :, None] * (beta[:, :, t, None] * (v[:, :, t] - e))[:, :, None, :]
            outs.append((Sr * q[:, :, t, :, None]).sum(-2))
        check("chunked delta rule vs recurrence (outputs)", o, torch.stack(outs, dim=2), 1e-5)
        check("chunked delta rule vs recurrence (state)", S, Sr, 1e-5)

    tok = Tokenizer(os.path.join(folder, "tokenizer.json"))
    cases = json.load(open(os.path.join(folder, "tokenizer_cases.json")))
    cases = cases["cases"] if isinstance(cases, dict) else cases
    n_ascii = 0
    for c in cases:
        if not c["text"].isascii():
            continue
        n_ascii += 1
        if tok.encode(c["text"]) != c["ids"]:
            failures.append(f"tokenizer case {c['text']!r}")
            print(f"FAIL tokenizer case {c['text']!r}: {tok.encode(c['text'])} != {c['ids']}")
    print(f"     tokenizer: {n_ascii} ASCII cases checked")
    if failures:
        print(f"FAILED: {len(failures)} check(s): {', '.join(failures)}")
        return 1
    print("PASS: the twin reproduces the golden within", GATE)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: check_golden.py GOLDEN_FOLDER (e.g. tests/data/tiny-a)")
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
