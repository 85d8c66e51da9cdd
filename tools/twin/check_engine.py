#!/usr/bin/env python3
"""Checks the C++ engine against the twin on a trained checkpoint: writes a reference folder in
tests/data/tiny-a's format (the checkpoint's files + a scene + golden.json/golden.safetensors
computed by the twin in float32), then runs `glance-cli check` on it (logits <= 1e-3, greedy
tokens identical, ...).

  check_engine.py MODEL_DIR IMAGE.png GLANCE_CLI OUT_DIR

The golden also carries `mtp.logits`: the MTP head's logits for prompt rows t = 0..L-2 (from the
main model's final-normed hidden state at t and the embedding of prompt token t+1; they predict
token t+2), for an engine that implements the MTP drafter.
Exit codes: 0 pass, 1 fail, 77 skipped (no torch here).
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import deps  # noqa: E402

deps.require()
import numpy as np  # noqa: E402
import torch  # noqa: E402
from PIL import Image  # noqa: E402

import safetensors_io  # noqa: E402
from checkpoint import load_model  # noqa: E402
from model import mrope_positions, patchify  # noqa: E402
from text import GEN_PROMPT, IMAGE, Tokenizer  # noqa: E402

PROMPT = "Describe this image."
STEPS = 24


def write_golden(model_dir, image, out):
    torch.set_num_threads(min(2, torch.get_num_threads()))
    model, config = load_model(model_dir)
    model.eval()
    if os.path.exists(out):
        shutil.rmtree(out)
    shutil.copytree(model_dir, out)
    shutil.copy(image, os.path.join(out, "image.png"))
    tok = Tokenizer(os.path.join(model_dir, "tokenizer.json"))
    img = np.array(Image.open(image).convert("RGB"))
    if img.shape[0] % 32 or img.shape[1] % 32:
        raise SystemExit(f"{image}: sides must be multiples of 32 (the twin does not resize)")
    pv, gh, gw = patchify(img)
    grid = [(gh // 2, gw // 2)]
    text = "<|im_start|>user\n" + IMAGE + PROMPT + "<|im_end|>\n" + GEN_PROMPT
    ids = []
    for t in tok.encode(text):
        ids += [t] * (grid[0][0] * grid[0][1]) if t == config["image_token_id"] else [t]
    with torch.no_grad():
        emb = model.model.visual(pv[None], gh, gw)
        pos, delta = mrope_positions(ids, config["image_token_id"], grid)
        hidden, _, _ = model(torch.tensor([ids]), pos[None], emb)
        logits = model.head(hidden)[0]
        mtp = model.head(model.mtp_hidden(torch.tensor([ids]), hidden, pos[None]))[0] if model.mtp else None
        seq, toks, rows = list(ids), [], []
        for _ in range(STEPS):  # greedy, EOS ignored, by full recomputation
            p, _ = mrope_positions(seq, config["image_token_id"], grid)
            h, _, _ = model(torch.tensor([seq]), p[None], emb)
            row = model.head(h[:, -1])[0]
            rows.append(row)
            toks.append(int(row.argmax()))
            seq.append(toks[-1])
    tensors = {"pixel_values": pv, "image_grid_thw": torch.tensor([[1, gh, gw]]),
               "vision.image_embeds": emb[0], "prompt.input_ids": torch.tensor(ids),
               "prompt.position_ids": pos, "prompt.rope_deltas": torch.tensor([delta]),
               "prefill.logits": logits, "decode.tokens": torch.tensor(toks), "decode.logits": torch.stack(rows)}
    if mtp is not None:
        tensors["mtp.logits"] = mtp
    safetensors_io.save(os.path.join(out, "golden.safetensors"), tensors,
                        {k: ("F32" if v.is_floating_point() else "I64") for k, v in tensors.items()})
    with open(os.path.join(out, "golden.json"), "w") as f:
        json.dump({"producer": "tools/twin (PyTorch twin, float32)", "image": {"file": "image.png"},
                   "prompt": {"messages": [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": PROMPT}]}],
                              "chat_template_text": text},
                   "decode": {"tokens": toks, "text": tok.decode(toks)}}, f, indent=1)
    print(f"twin: greedy answer {tok.decode(toks)!r}")


def main():
    if len(sys.argv) != 5:
        print("usage: check_engine.py MODEL_DIR IMAGE.png GLANCE_CLI OUT_DIR")
        return 2
    model_dir, image, cli, out = sys.argv[1:]
    write_golden(model_dir, image, out)
    tiny_a_cases = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "tiny-a", "tokenizer_cases.json")
    with open(os.path.join(model_dir, "tokenizer.json"), "rb") as a, open(os.path.join(os.path.dirname(tiny_a_cases), "tokenizer.json"), "rb") as b:
        if a.read() == b.read():
            shutil.copy(tiny_a_cases, out)  # same tokenizer: its reference cases apply
    r = subprocess.run([cli, "check", out, "--precision", "f32", "--backend", "cpu"], capture_output=True, text=True)
    print(r.stdout + r.stderr)
    return 0 if r.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
