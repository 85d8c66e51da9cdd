#!/usr/bin/env python3
"""Writes tests/lm/data/mtp_reference.safetensors: the MTP module's outputs on the shipped demo
model (resources/demo-model), computed by the PyTorch twin (tools/twin/model.py, class MTP and
mtp_hidden) in float32, for test_mtp.cpp to compare the C++ MTP against.

  /usr/bin/python3 tests/lm/make_mtp_reference.py [MODEL_DIR]   (needs python3-torch)

MODEL_DIR defaults to resources/demo-model; the reference records the sha256 of its
model.safetensors, and test_mtp skips the comparison for any other demo model (regenerate this
file whenever the demo model is retrained).

A text-only prompt at text positions 0..T-1 on all three M-RoPE axes: MTP row t (main hidden t,
token t+1, at position t+1) predicts token t+2.
"""
import hashlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "twin"))
import deps  # noqa: E402

deps.require()
import torch  # noqa: E402

import safetensors_io  # noqa: E402
from checkpoint import load_model  # noqa: E402

# Any in-vocabulary ids will do; these are the demo tokenizer's chat-template start plus text.
IDS = [4058, 882, 198, 74, 1521, 300, 2087, 45, 1003, 17, 3999, 512, 64, 4059, 198, 4058]


def main():
    torch.set_num_threads(1)
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "resources", "demo-model")
    with open(os.path.join(folder, "model.safetensors"), "rb") as f:
        digest = hashlib.sha256(f.read()).digest()
    model, _ = load_model(folder)
    model.eval()
    ids = torch.tensor([IDS])
    T = len(IDS)
    pos = torch.arange(T)[None, None, :].expand(1, 3, T).contiguous()
    with torch.no_grad():
        hidden, _, _ = model(ids, pos, None)          # final-normed [1, T, H]
        mtp = model.mtp_hidden(ids, hidden, pos)[0]   # [T-1, H], normed output of the MTP
        logits = model.head(mtp)                      # [T-1, V]
    tensors = {"ids": torch.tensor(IDS), "mtp.hidden": mtp, "mtp.argmax": logits.argmax(-1),
               "mtp.logits_last": logits[-1],
               # Which demo model this is for (test_mtp skips the comparison for another one).
               "model.sha256": torch.tensor(list(digest), dtype=torch.int64)}
    out = os.path.join(ROOT, "tests", "lm", "data", "mtp_reference.safetensors")
    safetensors_io.save(out, tensors, {k: ("F32" if v.is_floating_point() else "I64") for k, v in tensors.items()},
                        {"producer": "tests/lm/make_mtp_reference.py (tools/twin, float32)"})
    print(f"wrote {out}: argmax {logits.argmax(-1).tolist()}")


if __name__ == "__main__":
    main()
