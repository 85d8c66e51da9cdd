#!/usr/bin/env python3
"""Writes the held-out scenes the app ships and the demo tests read:
OUT/scene-NNN.png (224x224 RGB) and OUT/scenes.json (what is in each, a reference caption,
and one question of each type with its answer). Scenes come from the "test" split, which the
training never sees.

  /usr/bin/python3 tools/twin/make_scenes.py resources/demo-scenes --count 256
"""
import argparse
import json
import os
import random
import sys

from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shapes_world as world  # noqa: E402


def token_cells(sc, k, grid=7):
    """Raster indices of the image tokens (grid x grid squares of 32 px) the object touches."""
    cell = world.SIZE // grid
    touched = world.object_mask(sc, k).reshape(grid, cell, grid, cell).any(axis=(1, 3))
    return [int(i) for i in touched.reshape(-1).nonzero()[0]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=256)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    scenes = []
    for i in range(a.count):
        sc = world.scene("test", i)
        name = f"scene-{i:03d}.png"
        Image.fromarray(world.render(sc)).save(os.path.join(a.out, name), optimize=True)
        qa = world.qa_turns(sc, random.Random(f"qa:{i}"), reasoned=True)
        scenes.append(dict(
            file=name,
            background=sc["background"],
            objects=[dict(shape=o["shape"], colour=o["colour"], size=o["size"], cell=o["cell"],
                          position=world.POSITIONS[o["cell"]], token_cells=token_cells(sc, k))
                     for k, o in enumerate(sc["objects"])],
            caption=world.caption(sc, i % 3),
            questions=[dict(type=t, question=q, answer=ans) for t, q, ans in qa]))
    meta = dict(
        about="Held-out shapes-world scenes (split 'test' of tools/twin/shapes_world.py). cell: 0..8, "
              "row-major over a 3x3 grid of the 224x224 image. token_cells: the 7x7 image tokens "
              "(32-pixel squares, raster order) the object touches.",
        shapes=world.SHAPES, colours=world.OBJECT_COLOURS, backgrounds=world.BACKGROUNDS,
        sizes=list(world.SIZES), positions=world.POSITIONS, scenes=scenes)
    with open(os.path.join(a.out, "scenes.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    print(f"wrote {a.count} scenes to {a.out}")


if __name__ == "__main__":
    main()
