#!/usr/bin/env python3
"""The Markdown tables of tools/bench/side_by_side.sh from one results folder.

usage: side_by_side_table.py RESULTS_DIR ROUNDS [--long A,B] [--ttft REPS]

Reads roundN-glance.json (glance-cli bench --json), roundN-llama.json and roundN-ik.json
(llama-bench -o json). Each engine's figure in a round is the median of its reps (Glance's
bench reports that median; for llama-bench, the median of samples_ts). Prints the per-round
ratios Glance / llama.cpp and Glance / ik_llama.cpp and their median (min-max) over rounds, and
each engine's median tok/s. Standard library only.

--long A,B: also prefill @A, @B and decode after B tokens of context, from roundN-glance-long.json
(prefill_tokens_per_s_A/_B, decode_tokens_per_s_at_B), roundN-llama-long.json (llama-bench -p A,B),
roundN-llama-depth.json (llama-bench -d B: n_prompt 0, n_depth B) and roundN-ik-long.json
(ik_llama.cpp's llama-bench -p A,B -gp B,n: the -gp test has n_prompt B and n_gen n).

--ttft REPS: also image + question -> first token, from roundN-glance-ttft.json (ttft_s) and
roundN-mtmd-ttft-1..REPS.log (llama-mtmd-cli's stderr): the time between its log lines
"main: loading model" (logged once model and mmproj are loaded and warmed up) and the
llama_perf_context_print report (printed once the first token is out), less its "eval time";
the median over the reps (see mtmd_ttft_s). Its ratio is a speed ratio like the others:
llama-mtmd-cli's seconds / Glance's seconds (> 1: Glance is faster).
"""
from __future__ import annotations

import json
import re
import statistics
import sys
from pathlib import Path

ENGINES = ("glance", "llama", "ik")
ROWS = [("prefill @64", "pp64"), ("prefill @512", "pp512"), ("decode", "tg")]
SECONDS_ROWS = {"ttft"}  # figures in seconds (lower is better); the others in tok/s
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


def llama_bench_tests(path: Path) -> list[tuple[int, int, int, float]]:
    """(n_prompt, n_gen, n_depth, median tok/s) of every test in a llama-bench -o json file."""
    out = []
    for t in load(path):
        ts = t.get("samples_ts") or ([t["avg_ts"]] if "avg_ts" in t else [])
        if not ts:
            fail(f"{path}: a test without samples_ts or avg_ts")
        out.append((t.get("n_prompt", 0), t.get("n_gen", 0), t.get("n_depth", 0), statistics.median(ts)))
    return out


def long_figures(out: Path, r: int, a: int, b: int) -> dict[str, dict[str, float | None]]:
    keys = {f"pp{a}": f"prefill_tokens_per_s_{a}", f"pp{b}": f"prefill_tokens_per_s_{b}",
            f"tg@{b}": f"decode_tokens_per_s_at_{b}"}
    g = load(out / f"round{r}-glance-long.json")
    fig: dict[str, dict[str, float | None]] = {"glance": {}, "llama": {}, "ik": {}}
    for k, key in keys.items():
        if key not in g:
            fail(f"{out / f'round{r}-glance-long.json'} has no '{key}'")
        fig["glance"][k] = g[key]
    for e, files in (("llama", ("llama-long", "llama-depth")), ("ik", ("ik-long",))):
        d = {k: None for k in keys}
        for f in files:
            for n_p, n_g, n_d, v in llama_bench_tests(out / f"round{r}-{f}.json"):
                if n_g == 0 and n_d == 0 and n_p in (a, b):
                    d[f"pp{n_p}"] = v
                elif n_p == 0 and n_g > 0 and n_d == b:  # llama.cpp: -d b
                    d[f"tg@{b}"] = v
                elif n_p == b and n_g > 0 and n_d == 0 and e == "ik":  # ik_llama.cpp: -gp b,n
                    d[f"tg@{b}"] = v
        fig[e] = d
    return fig


# llama-mtmd-cli's log lines start with the time since it started, M.SS.mmm.uuu (minutes,
# seconds, milliseconds, microseconds).
STAMP = r"^(\d+)\.(\d{2})\.(\d{3})\.(\d{3}) "
MTMD_START = re.compile(STAMP + r".*main: loading model: ", re.M)   # model + mmproj loaded, warmed up
MTMD_PERF = re.compile(STAMP + r".*llama_perf_context_print: +load time", re.M)  # after the answer
MTMD_EVAL = re.compile(r"llama_perf_context_print: +eval time = +([0-9.]+) ms")


def stamp_s(m: re.Match) -> float:
    return int(m[1]) * 60 + int(m[2]) + int(m[3]) / 1e3 + int(m[4]) / 1e6


def mtmd_ttft_s(path: Path) -> float:
    """From the line logged once the model and mmproj are loaded and warmed up to the perf
    report printed once the answer (-n 1: the first token) is out, less the decode of
    generated tokens ("eval time"; 0 with -n 1): reading the image, its preprocessing and
    encoding, and the prompt through the language model up to the first token's sampling."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    start, perf, ev = MTMD_START.search(text), MTMD_PERF.search(text), MTMD_EVAL.search(text)
    if not start or not perf or not ev:
        fail(f"{path}: no time-stamped 'main: loading model' line or no llama_perf_context_print "
             "lines (llama-mtmd-cli needs --perf -lv 4 and its default log time stamps)")
    return stamp_s(perf) - stamp_s(start) - float(ev[1]) / 1e3


def ttft_figures(out: Path, r: int, reps: int) -> dict[str, dict[str, float | None]]:
    g = load(out / f"round{r}-glance-ttft.json")
    if "ttft_s" not in g:
        fail(f"{out / f'round{r}-glance-ttft.json'} has no 'ttft_s'")
    m = [mtmd_ttft_s(out / f"round{r}-mtmd-ttft-{i}.log") for i in range(1, reps + 1)]
    return {"glance": {"ttft": g["ttft_s"]}, "llama": {"ttft": statistics.median(m)}, "ik": {"ttft": None}}


def summary(xs: list[float]) -> str:
    if not xs:
        return "—"
    m = statistics.median(xs)
    if len(xs) == 1:
        return f"{m:.2f}×"
    return f"{m:.2f}× ({min(xs):.2f}–{max(xs):.2f})"


def main() -> None:
    usage = "usage: side_by_side_table.py RESULTS_DIR ROUNDS [--long A,B] [--ttft REPS]"
    args = sys.argv[1:]
    if len(args) < 2:
        fail(usage)
    out = Path(args[0])
    rounds = int(args[1])
    long_ab: tuple[int, int] | None = None
    ttft_reps = 0
    rest = args[2:]
    while rest:
        if rest[0] == "--long" and len(rest) >= 2:
            a, _, b = rest[1].partition(",")
            long_ab = (int(a), int(b))
            rest = rest[2:]
        elif rest[0] == "--ttft" and len(rest) >= 2:
            ttft_reps = int(rest[1])
            rest = rest[2:]
        else:
            fail(usage)
    if long_ab:
        a, b = long_ab
        ROWS.extend([(f"prefill @{a}", f"pp{a}"), (f"prefill @{b}", f"pp{b}"), (f"decode after {b}", f"tg@{b}")])
    if ttft_reps:
        ROWS.append(("image 224 + question → 1st token (llama.cpp: llama-mtmd-cli)", "ttft"))
    fig: dict[int, dict[str, dict[str, float | None]]] = {}
    for r in range(1, rounds + 1):
        fig[r] = {
            "glance": glance_figures(out / f"round{r}-glance.json"),
            "llama": llama_bench_figures(out / f"round{r}-llama.json"),
            "ik": llama_bench_figures(out / f"round{r}-ik.json"),
        }
        extra = []
        if long_ab:
            extra.append(long_figures(out, r, *long_ab))
        if ttft_reps:
            extra.append(ttft_figures(out, r, ttft_reps))
        for x in extra:
            for e in ENGINES:
                fig[r][e].update(x[e])

    def ratio(r: int, row: str, other: str) -> float | None:
        g, o = fig[r]["glance"][row], fig[r][other][row]
        if not g or not o:
            return None
        return o / g if row in SECONDS_ROWS else g / o  # a speed ratio either way: > 1, Glance faster

    def fmt(row: str, v: float) -> str:
        return f"{v:.2f} s" if row in SECONDS_ROWS else f"{v:.1f}"

    print(f"| 2B, 4-bit | Glance ÷ llama.cpp (Q4_0) | Glance ÷ ik_llama.cpp (Q4_0, -rtr 1 -fa 1) |")
    print("|---|---|---|")
    for label, row in ROWS:
        cells = []
        for other in ("llama", "ik"):
            xs = [x for r in fig if (x := ratio(r, row, other)) is not None]
            cells.append(summary(xs))
        print(f"| {label} | {cells[0]} | {cells[1]} |")
    print()
    print("Medians over rounds, tok/s" + (" (time to first token: seconds)" if ttft_reps else "") + ":")
    print()
    print("| | Glance | llama.cpp | ik_llama.cpp |")
    print("|---|---|---|---|")
    for label, row in ROWS:
        cells = []
        for e in ENGINES:
            xs = [v for r in fig if (v := fig[r][e][row]) is not None]
            cells.append(fmt(row, statistics.median(xs)) if xs else "—")
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
            txt = " / ".join(fmt(row, v) if v is not None else "—" for v in vals)
            rl, ri = ratio(r, row, "llama"), ratio(r, row, "ik")
            txt += f"; {rl:.2f}×" if rl is not None else "; —"
            txt += f", {ri:.2f}×" if ri is not None else ", —"
            cells.append(txt)
        print(f"| {r} | {order} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
