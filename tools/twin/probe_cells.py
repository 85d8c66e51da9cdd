#!/usr/bin/env python3
"""Does the vision tower tell the language model where each object is? A linear read-out (ridge
regression, fitted on two thirds of the objects, scored on the rest) of the object's 3x3 grid
cell from its own image token, for a run's state or a checkpoint folder. Chance is 1/9.

  /usr/bin/python3 tools/twin/probe_cells.py RUN/state.pt|MODEL_DIR [SCENES]

Measured on the demo model's history: 0.10 at step 1280 (the cell probe then asked only over
all 49 tokens, and the background tokens learned it), 0.98 after the object-token cell probe
and a larger position table (training.json).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import deps  # noqa: E402

deps.require()
import numpy as np  # noqa: E402
import torch  # noqa: E402

import shapes_world as world  # noqa: E402
from checkpoint import load_model  # noqa: E402
from model import Qwen35, patchify  # noqa: E402


def load(path):
    if os.path.isdir(path):
        return load_model(path)[0]
    st = torch.load(path)
    model = Qwen35(st["config"])
    model.load_state_dict(st["model"])
    return model


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    torch.set_num_threads(1)
    model = load(sys.argv[1])
    scenes = int(sys.argv[2]) if len(sys.argv) == 3 else 400
    X, Y = [], []
    with torch.no_grad():
        for i in range(scenes):
            sc = world.scene("val", i)
            img = model.model.visual(patchify(world.render(sc))[0][None], 14, 14)[0]
            for o in sc["objects"]:
                X.append(img[int(o["cy"] // world.TOKEN) * 7 + int(o["cx"] // world.TOKEN)].numpy())
                Y.append(o["cell"])
    A = np.c_[np.array(X), np.ones(len(X))]
    Y = np.array(Y)
    n = len(Y) * 2 // 3
    W = np.linalg.solve(A[:n].T @ A[:n] + np.eye(A.shape[1]), A[:n].T @ np.eye(9)[Y[:n]])
    acc = (np.argmax(A[n:] @ W, 1) == Y[n:]).mean()
    print(f"cell read-out from the object's own token: {acc:.3f} ({len(Y) - n} held-out objects, chance 0.111)")


if __name__ == "__main__":
    main()
