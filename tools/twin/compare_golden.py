#!/usr/bin/env python3
"""Holds a golden folder make_golden.py wrote against a reference folder of the same prompt
(tests/data/tiny-a, made by Hugging Face transformers): every tensor the written folder has must
be in the reference and agree (floats within 1e-4 max abs like check_golden.py, pixel values
1e-6, ints exactly), and so must the prompt text, ids and turn-2 fields of golden.json.

  compare_golden.py WRITTEN_DIR REFERENCE_DIR

Negative control: the written decode logits against the reference's next step must differ by far
more than the gate. Exit codes: 0 agree, 1 differ, 77 skipped (no torch here).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import deps  # noqa: E402

deps.require()
import safetensors_io  # noqa: E402

GATE = 1e-4


def main(written, reference):
    W = safetensors_io.load(os.path.join(written, "golden.safetensors"))
    R = safetensors_io.load(os.path.join(reference, "golden.safetensors"))
    with open(os.path.join(written, "golden.json"), encoding="utf-8") as f:
        wj = json.load(f)
    with open(os.path.join(reference, "golden.json"), encoding="utf-8") as f:
        rj = json.load(f)
    failures = []

    def report(name, ok, what):
        print(f"{'ok  ' if ok else 'FAIL'} {name:36s} {what}")
        if not ok:
            failures.append(name)

    for name in sorted(W):
        w = W[name]
        if name not in R:
            report(name, False, "not in the reference")
            continue
        r = R[name]
        if tuple(w.shape) != tuple(r.shape):
            report(name, False, f"shape {list(w.shape)} vs {list(r.shape)}")
        elif w.is_floating_point():
            gate = 1e-6 if name == "pixel_values" else GATE
            d = (w - r).abs().max().item() if w.numel() else 0.0
            report(name, d <= gate, f"max abs diff {d:.3e} (gate {gate:g})")
        else:
            n = int((w != r).sum())
            report(name, n == 0, f"{n} of {w.numel()} differ")
    print(f"     {len(W)} tensors compared; reference tensors not written: "
          f"{len([k for k in R if k not in W])} (internals check does not read)")

    def field(path):
        a, b = wj, rj
        for k in path.split("."):
            a, b = a.get(k) if isinstance(a, dict) else None, b.get(k) if isinstance(b, dict) else None
        # enable_thinking may be unset (absent) in both; every other field must be there.
        ok = a == b and (a is not None or path == "prompt.enable_thinking")
        report("golden.json " + path, ok, "equal" if ok else f"{str(a)[:80]} != {str(b)[:80]}")

    for path in ("prompt.messages", "prompt.enable_thinking", "prompt.chat_template_text", "prompt.input_ids",
                 "prompt.rope_deltas", "decode.tokens", "decode.text", "turn2.user_text", "turn2.suffix_text",
                 "turn2.suffix_ids", "turn2.input_ids", "turn2.tokens",
                 "turn2.template_render_of_two_turn_conversation", "turn2.template_render_ids"):
        field(path)

    n = min(len(W["decode.logits"]), len(R["decode.logits"])) - 1
    neg = (W["decode.logits"][:n] - R["decode.logits"][1:n + 1]).abs().amax(dim=1).min().item()
    report("negative control", neg > 100 * GATE, f"written step k vs reference step k+1: min max abs diff {neg:.2f}")
    if failures:
        print(f"FAILED: {len(failures)}: {', '.join(failures)}")
        return 1
    print(f"PASS: {written} agrees with {reference} within {GATE}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: compare_golden.py WRITTEN_DIR REFERENCE_DIR")
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
