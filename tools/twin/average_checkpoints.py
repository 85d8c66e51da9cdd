#!/usr/bin/env python3
"""Writes the mean of two exported checkpoints of the same run (same config) as a third folder:
OUT gets A's files and, in model.safetensors, the element-wise mean of A's and B's weights
(rounded to BF16 as export writes them). The shipped demo model is the mean of its step-2358 and
step-2600 exports: through the engine it captioned better than either (README "The demo model").

  /usr/bin/python3 tools/twin/average_checkpoints.py A_DIR B_DIR OUT_DIR [A_WEIGHT]

A_WEIGHT (default 0.5) is A's share of the mean, B's is 1 - A_WEIGHT.
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import deps  # noqa: E402

deps.require()
import torch  # noqa: E402

import safetensors_io  # noqa: E402


def main():
    if len(sys.argv) not in (4, 5):
        raise SystemExit(__doc__)
    a_dir, b_dir, out = sys.argv[1:4]
    try:
        wa = float(sys.argv[4]) if len(sys.argv) == 5 else 0.5
    except ValueError:
        raise SystemExit(f"A_WEIGHT: {sys.argv[4]!r} is not a number")
    if not 0.0 <= wa <= 1.0:
        raise SystemExit(f"A_WEIGHT: {wa} is outside 0..1")
    a = safetensors_io.load(os.path.join(a_dir, "model.safetensors"))
    b = safetensors_io.load(os.path.join(b_dir, "model.safetensors"))
    if a.keys() != b.keys() or any(a[k].shape != b[k].shape for k in a):
        raise SystemExit(f"{a_dir} and {b_dir}: not the same model (tensor names or shapes differ)")
    if os.path.abspath(out) != os.path.abspath(a_dir):
        shutil.copytree(a_dir, out, dirs_exist_ok=True)
    # wa == 0.5 computes (a + b) / 2 exactly as before the weight existed: the shipped model's bits.
    if wa == 0.5:
        mean = {k: ((a[k].float() + b[k].float()) / 2).to(torch.bfloat16) for k in a}
    else:
        mean = {k: (wa * a[k].float() + (1 - wa) * b[k].float()).to(torch.bfloat16) for k in a}
    safetensors_io.save(os.path.join(out, "model.safetensors"), mean)
    print(f"wrote {out}: the {wa:g} : {1 - wa:g} mean of {len(a)} tensors")


if __name__ == "__main__":
    main()
