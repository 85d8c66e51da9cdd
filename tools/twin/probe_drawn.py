#!/usr/bin/env python3
"""Reads a twin's vision tower on the hand-drawn scenes the engine is measured on (issue 32):
the linear probes on each object's own token (the token under its centre), as the curriculum's
val read-out, but on the independent renderer's pictures (tests/demo/hand_drawn_scenes.cpp
writes drawn-N.png/.jpg with drawn-N.json beside it when test_demo_hand_drawn runs).

It tells the tower's part of a hand-drawn caption's miss from the language model's: a tower that
reads a shape on its own token, with the caption still wrong, leaves the miss to the reading.

  build/release/tests/demo/test_demo_hand_drawn        # draws the 300 scenes
  OPENBLAS_NUM_THREADS=1 /usr/bin/python3 tools/twin/probe_drawn.py STATE [--vision-depth 4 ...]

STATE: a vision_curriculum.py state.pt (its tower; give the same tower flags) or a train.py
state.pt (its model's tower and its probe; the flags are in it). Compare with the state's own val
line: "varied val" below is the same read-out on varied val scenes 0-255.
"""
import argparse
import glob
import json
import os
import sys

import numpy as np
import torch
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shapes_world as world  # noqa: E402
import train  # noqa: E402
import varied_world  # noqa: E402
import vision_curriculum  # noqa: E402
from demo_config import add_vision_flags, demo_config  # noqa: E402
from model import Qwen35, patchify  # noqa: E402

GRID = 7


def drawn_set(folder):
    """The hand-drawn scenes in `folder` -> (pixels [N, 196, 1536], per object (scene, own token,
    shape+1, colour, size+1, cell), how many pictures)."""
    pix, objects = [], []
    names = sorted(glob.glob(os.path.join(folder, "drawn-*.json")))
    colours = list(world.COLOURS)
    for n, path in enumerate(names):
        labels = json.load(open(path))
        stem = path[:-len(".json")]
        image = next(p for p in (stem + ".png", stem + ".jpg") if os.path.exists(p))
        img = np.array(Image.open(image).convert("RGB"))  # a writable copy for torch
        if img.shape[:2] != (GRID * world.TOKEN, GRID * world.TOKEN):
            sys.exit(f"{image}: {img.shape[1]}x{img.shape[0]}, not the {GRID * world.TOKEN}-pixel square the probes read")
        pix.append(patchify(img)[0])
        for o in labels["objects"]:
            objects.append((n, varied_world.own_token(o), world.SHAPES.index(o["shape"]) + 1, colours.index(o["colour"]),
                            list(world.SIZES).index(o["size"]) + 1, o["cell"]))
    if not names:
        sys.exit(f"{folder}: no drawn-N.json (run build/release/tests/demo/test_demo_hand_drawn first)")
    return torch.stack(pix), torch.tensor(objects), len(names)


@torch.no_grad()
def read_out(vis, probe, pix, objects):
    """Accuracy of the shape / colour / size / cell probes, and of shape and colour together."""
    img = torch.cat([vis(pix[i:i + 64], 14, 14) for i in range(0, len(pix), 64)])
    own = img[objects[:, 0], objects[:, 1]]
    right = [(head(own).argmax(-1) == objects[:, 2 + k]) for k, head in
             enumerate((probe.shape, probe.colour, probe.size, probe.cell))]
    both = right[0] & right[1]
    by_size = [both[objects[:, 4] == k + 1].float().mean().item() for k in range(len(world.SIZES))]
    by_shape = [both[objects[:, 2] == k + 1].float().mean().item() for k in range(len(world.SHAPES))]
    return [r.float().mean().item() for r in right] + [both.float().mean().item()], by_size, by_shape


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("state")
    ap.add_argument("--drawn", default="build/release/tests/demo/hand-drawn", help="folder of drawn-N.json and pictures")
    ap.add_argument("--threads", type=int, default=1)
    add_vision_flags(ap)
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    st = torch.load(a.state, weights_only=False)
    if "visual" in st:  # vision_curriculum.py
        model = Qwen35(demo_config(a))
        model.model.visual.load_state_dict(st["visual"])
    elif "model" in st:  # train.py
        model = Qwen35(st["config"])
        model.load_state_dict(st["model"])
    else:
        sys.exit(f"{a.state}: neither a vision_curriculum.py nor a train.py state (no 'visual' or 'model')")
    vis = model.model.visual
    probe = train.AuxProbe(vis.vc["out_hidden_size"], own_token=True)
    probe.load_state_dict(st["probe"])
    vis.eval()
    pix, objects, scenes = drawn_set(a.drawn)
    val_pix, _, val_labels = vision_curriculum.val_set()
    own = val_labels[:, 3] >= 0
    where = own.nonzero()
    val_objects = torch.stack([where[:, 0], where[:, 1]] + [val_labels[:, k][own] for k in (0, 1, 2, 3)], 1)
    print(f"{'':12} {'shape':>6} {'colour':>6} {'size':>6} {'cell':>6} {'both':>6}   objects")
    rows = [(name, len(o), *read_out(vis, probe, p, o))
            for name, p, o in (("hand-drawn", pix, objects), ("varied val", val_pix, val_objects))]
    pct = lambda xs: " ".join(f"{100 * x:5.1f}%" for x in xs)  # noqa: E731
    for name, n, r, _, _ in rows:
        print(f"{name:12} {pct(r)}   {n}")
    print("shape and colour both right, by size (" + ", ".join(world.SIZES) + ") and by shape ("
          + ", ".join(world.SHAPES) + "):")
    for name, _, _, by_size, by_shape in rows:
        print(f"{name:12} {pct(by_size)}  |  {pct(by_shape)}")
    print(f"({scenes} hand-drawn scenes in {a.drawn}; the own token is the one under each object's centre)")


if __name__ == "__main__":
    main()
