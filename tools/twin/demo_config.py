"""The shipped demo model's shape: a small Qwen3.5 (3:1 DeltaNet/attention, 2-block vision tower)."""
import copy
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TINY_A = os.path.join(HERE, "..", "..", "tests", "data", "tiny-a")


def add_vision_flags(ap):
    """The tower's shape flags that vision_curriculum.py and train.py share (a tower grown in the
    one must be built the same in the other)."""
    ap.add_argument("--vision-depth", type=int, help="vision blocks (default: demo_config's); with train.py's "
                    "--init-from, new ones start as the identity")
    ap.add_argument("--vision-intermediate", type=int, help="the vision blocks' MLP width (default: demo_config's)")
    ap.add_argument("--vision-hidden", type=int, help="the vision tower's width (default: demo_config's); "
                    "a wider one than train.py's --init-from's needs --init-vision-from")
    ap.add_argument("--vision-heads", type=int, help="the vision tower's attention heads (default: demo_config's)")


def demo_config(flags=None):
    """tiny-a's config (token ids, processor, rope layout) with a wider vision tower and an MTP layer;
    flags: parsed add_vision_flags, whose given values replace the tower's defaults."""
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
    if flags is not None:
        for flag, key in (("vision_depth", "depth"), ("vision_intermediate", "intermediate_size"),
                          ("vision_hidden", "hidden_size"), ("vision_heads", "num_heads")):
            if getattr(flags, flag):
                vc[key] = getattr(flags, flag)
    return c
