#!/usr/bin/env python3
"""One SHA-256 over what the varied world draws, and the CPU time it took: a change meant to make
drawing cheaper must print the same digest before and after (README "A fifth look").
300 train scenes as colour, silhouette and blend (vision_curriculum.draw), plus 100 val renders
and their objects' coverages.

  OPENBLAS_NUM_THREADS=1 /usr/bin/python3 tools/twin/draw_digest.py
"""
import hashlib
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import varied_world  # noqa: E402
import vision_curriculum  # noqa: E402


def main():
    h = hashlib.sha256()
    start = time.process_time()
    for i in range(300):
        for kind, t in (("colour", 1.0), ("sil", 0.0), ("blend", 0.37)):
            img, labels, colour_asked = vision_curriculum.draw(vision_curriculum.FIRST_SCENE + i, kind, t)
            h.update(img.tobytes())
            h.update(labels.tobytes())
            h.update(bytes([colour_asked]))
    for i in range(100):
        sc = varied_world.scene("val", i)
        h.update(varied_world.render(sc).tobytes())
        for k in range(len(sc["objects"])):
            h.update(varied_world.object_coverage(sc, k).tobytes())
    print(h.hexdigest(), f"{time.process_time() - start:.2f} CPU-s")


if __name__ == "__main__":
    main()
