#!/usr/bin/env python3
"""Run llama.cpp's own convert_hf_to_gguf.py on a Qwen3.5 checkpoint written by
`glance-cli make-model` (random weights, a small stand-in tokenizer).

usage: convert_qwen35.py LLAMA_CPP_SRC MODEL_DIR [convert_hf_to_gguf.py options...]

The one change to the converter: its pre-tokenizer check encodes a fixed text
and looks up the hash of the token ids in a list of known models. make-model's
tokenizer is a 4k-token stand-in, so its hash is in no list, although its split
regex is Qwen3.5's. Here that check is replaced by a comparison of
tokenizer.json's Split regex with Qwen3.5's (the one llama.cpp's llama-vocab.cpp
quotes for LLAMA_VOCAB_PRE_TYPE_QWEN35); a match gives "qwen35" (the converter's
own name for Qwen3.5's pre-tokenizer), anything else stops the conversion.
Everything else -- tensors, hyperparameters, MTP layer, vocabulary -- is the
converter's. `transformers` and `tqdm` must be importable (side_by_side.sh puts
tools/bench/hf_standin on PYTHONPATH).
"""
from __future__ import annotations

import inspect
import json
import runpy
import sys
from pathlib import Path

QWEN35_SPLIT_REGEX = (
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}"
    "| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
)
PRE_NAME = "qwen35"


def split_regexes(pre) -> list[str]:
    if not isinstance(pre, dict):
        return []
    if pre.get("type") == "Sequence":
        return [r for p in pre.get("pretokenizers", []) for r in split_regexes(p)]
    if pre.get("type") == "Split":
        pat = pre.get("pattern", {})
        return [pat["Regex"]] if "Regex" in pat else []
    return []


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    src = Path(sys.argv[1]).resolve()
    model = Path(sys.argv[2]).resolve()
    conv = src / "convert_hf_to_gguf.py"
    if not conv.is_file():
        print(f"convert_qwen35.py: no convert_hf_to_gguf.py in {src}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(src / "gguf-py"))
    sys.path.insert(0, str(src))
    import torch
    # Debian 12's torch (1.13) predates the float8 dtypes that the converter's tables name
    # at import time. Give those names placeholders that match no tensor: a checkpoint with
    # float8 weights would fail on them, make-model writes bf16 and f32 only.
    for name in ("float8_e4m3fn", "float8_e5m2"):
        if not hasattr(torch, name):
            setattr(torch, name, f"<torch.{name}: missing in torch {torch.__version__}>")
    import conversion.base as base  # the converter's own package

    orig = base.TextModel.get_vocab_base_pre
    if f'res = "{PRE_NAME}"' not in inspect.getsource(orig):
        print(f"convert_qwen35.py: this converter has no '{PRE_NAME}' pre-tokenizer; update PRE_NAME", file=sys.stderr)
        return 2

    def get_vocab_base_pre(self, tokenizer) -> str:
        with open(Path(self.dir_model) / "tokenizer.json", encoding="utf-8") as f:
            regexes = split_regexes(json.load(f).get("pre_tokenizer"))
        if regexes != [QWEN35_SPLIT_REGEX]:
            raise NotImplementedError(
                f"convert_qwen35.py: tokenizer.json's split regex is not Qwen3.5's ({regexes!r}); "
                "not writing tokenizer.ggml.pre")
        base.logger.info(f"tokenizer.ggml.pre: {PRE_NAME!r} (split regex is Qwen3.5's; hash check skipped)")
        return PRE_NAME

    base.TextModel.get_vocab_base_pre = get_vocab_base_pre
    sys.argv = [str(conv), str(model)] + sys.argv[3:]
    runpy.run_path(str(conv), run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
