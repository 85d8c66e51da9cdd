"""The shipped demo model's shape: a small Qwen3.5 (3:1 DeltaNet/attention, 2-block vision tower)."""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TINY_A = os.path.join(HERE, "..", "..", "tests", "data", "tiny-a")


def demo_config():
    """tiny-a's config (token ids, processor, rope layout) with a wider vision tower and an MTP layer."""
    with open(os.path.join(TINY_A, "config.json")) as f:
        c = json.load(f)
    c = copy.deepcopy(c)
    tc, vc = c["text_config"], c["vision_config"]
    # The language model keeps tiny-a's shape (hidden 64, 8 layers LLLF x 2): training runs on
    # two shared CPU cores. The vision tower is wider (64) with a 14x14 position table (= the
    # 224x224 grid, so the interpolation is exact) because seeing the shapes is the hard part.
    tc.update(mtp_num_hidden_layers=1)
    vc.update(depth=2, hidden_size=64, num_heads=2, intermediate_size=128, out_hidden_size=64,
              num_position_embeddings=196)
    c["tie_word_embeddings"] = False
    return c
