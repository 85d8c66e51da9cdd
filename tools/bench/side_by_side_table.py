#!/usr/bin/env python3
"""The Markdown tables of tools/bench/side_by_side.sh from one results folder.

usage: side_by_side_table.py RESULTS_DIR ROUNDS

Reads roundN-glance.json (glance-cli bench --json), roundN-llama.json and roundN-ik.json
(llama-bench -o json). Each engine's figure in a round is the median of its reps (Glance's
bench reports that median; for llama-bench, the median of samples_ts). Prints the per-round
ratios Glance / llama.cpp and Glance / ik_llama.cpp and their median (min-max) over rounds, and
each engine's median tok/s. Standard library only.
"""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

ENGINES = ("glance", "llama", "ik")
ROWS = (("prefill @64", "pp64"), ("prefill @512", "pp512"), ("decode", "tg"))
GLANCE_KEYS = {"pp64": "prefill_tokens_per_s_64", "pp512": "prefill_tokens_per_s_512", "tg": "decode_tokens_per_s"}


def fail(msg: str) -> None:
    print(f"side_by_side_table.py: {msg}", file=sys.stderr)
    sys.exit(1)


def load(path: Path):
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        fail(f"{path} holds no JSON")
    try:
        return json.loads(text[start:])
    except json.JSONDecodeError as e:
        fail(f"{path} is not JSON: {e}")


def glance_figures(path: Path) -> dict[str, float | None]:
    j = load(path)
    out = {}
    for k, key in GLANCE_KEYS.items():
        if key not in j:
            fail(f"{path} has no '{key}'")
        out[k] = j[key]
    return out


def llama_bench_figures(path: Path) -> dict[str, float | None]:
    out: dict[str, float | None] = {"pp64": None, "pp512": None, "tg": None}
    for t in load(path):
        ts = t.get("samples_ts") or ([t["avg_ts"]] if "avg_ts" in t else [])
        if not ts:
            fail(f"{path}: a test without samples_ts or avg_ts")
        v = statistics.median(ts)
        n_p, n_g = t.get("n_prompt", 0), t.get("n_gen", 0)
        if n_g == 0 and n_p == 64:
            out["pp64"] = v
        elif n_g == 0 and n_p == 512:
            out["pp512"] = v
        elif n_p == 0 and n_g > 0:
            out["tg"] = v
    return out


def summary(xs: list[float]) -> str:
    if not xs:
        return "—"
    m = statistics.median(xs)
    if len(xs) == 1:
        return f"{m:.2f}×"
    return f"{m:.2f}× ({min(xs):.2f}–{max(xs):.2f})"


def main() -> None:
    if len(sys.argv) != 3:
        fail("usage: side_by_side_table.py RESULTS_DIR ROUNDS")
    out = Path(sys.argv[1])
    rounds = int(sys.argv[2])
    fig: dict[int, dict[str, dict[str, float | None]]] = {}
    for r in range(1, rounds + 1):
        fig[r] = {
            "glance": glance_figures(out / f"round{r}-glance.json"),
            "llama": llama_bench_figures(out / f"round{r}-llama.json"),
            "ik": llama_bench_figures(out / f"round{r}-ik.json"),
        }

    def ratio(r: int, row: str, other: str) -> float | None:
        g, o = fig[r]["glance"][row], fig[r][other][row]
        return g / o if g and o else None

    print(f"| 2B, 4-bit | Glance ÷ llama.cpp (Q4_0) | Glance ÷ ik_llama.cpp (Q4_0, -rtr 1 -fa 1) |")
    print("|---|---|---|")
    for label, row in ROWS:
        cells = []
        for other in ("llama", "ik"):
            xs = [x for r in fig if (x := ratio(r, row, other)) is not None]
            cells.append(summary(xs))
        print(f"| {label} | {cells[0]} | {cells[1]} |")
    print()
    print("Medians over rounds, tok/s:")
    print()
    print("| | Glance | llama.cpp | ik_llama.cpp |")
    print("|---|---|---|---|")
    for label, row in ROWS:
        cells = []
        for e in ENGINES:
            xs = [v for r in fig if (v := fig[r][e][row]) is not None]
            cells.append(f"{statistics.median(xs):.1f}" if xs else "—")
        print(f"| {label} | {' | '.join(cells)} |")
    print()
    print("Per round (order; tok/s Glance / llama.cpp / ik_llama.cpp; ratios):")
    print()
    print("| round | order | " + " | ".join(l for l, _ in ROWS) + " |")
    print("|---|---|" + "---|" * len(ROWS))
    for r in fig:
        order = "G L I" if r % 2 == 1 else "I L G"
        cells = []
        for _, row in ROWS:
            vals = [fig[r][e][row] for e in ENGINES]
            if vals[0] is None:
                cells.append("—")
                continue
            txt = " / ".join(f"{v:.1f}" if v is not None else "—" for v in vals)
            rl, ri = ratio(r, row, "llama"), ratio(r, row, "ik")
            txt += f"; {rl:.2f}×" if rl is not None else "; —"
            txt += f", {ri:.2f}×" if ri is not None else ", —"
            cells.append(txt)
        print(f"| {r} | {order} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
