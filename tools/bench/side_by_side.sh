#!/usr/bin/env bash
# Glance vs llama.cpp vs ik_llama.cpp on the same random 2B-shaped Qwen3.5, CPU only, side by side
# (issue 31). See tools/bench/README.md.
#
# usage: tools/bench/side_by_side.sh --ik PATH [--rounds N] [--work DIR] [--model DIR]
#                                    [--glance PATH] [--threads N] [--skip-build] [--quick]
#                                    [--long] [--long-lengths A,B] [--ttft]
set -euo pipefail

die() { echo "side_by_side.sh: $*" >&2; exit 1; }
say() { echo "== $*" >&2; }

usage() {
  cat <<'EOF'
usage: tools/bench/side_by_side.sh --ik PATH [options]

Builds llama.cpp (node-llama-cpp 3.22.1's git bundle) and ik_llama.cpp (a checkout you cloned from
https://github.com/ikawrakow/ik_llama.cpp) CPU-only in a work folder outside the repository, makes
a random 2B-shaped model with glance-cli make-model (or takes --model), converts it with llama.cpp's
convert_hf_to_gguf.py to f16 and llama-quantize to Q4_0, then runs Glance, llama.cpp and
ik_llama.cpp in alternating rounds and prints Glance's speed ratios as a Markdown table.

  --ik PATH        ik_llama.cpp source checkout (required unless --skip-build finds its build)
  --rounds N       measurement rounds (default 4); odd rounds run Glance, llama.cpp, ik_llama.cpp,
                   even rounds the reverse order
  --work DIR       work folder for sources, builds, model, ggufs, results
                   (default ${XDG_CACHE_HOME:-$HOME/.cache}/glance/side-by-side; not inside the repo)
  --model DIR      an existing make-model folder (config.json, model.safetensors, tokenizer.json);
                   default DIR=<work>/model-2b, written by 'glance-cli make-model --shape 2b' if absent
  --glance PATH    glance-cli to measure (default <repo>/build/release/app/glance-cli)
  --threads N      threads for every engine (default 2)
  --skip-build     use the builds already in the work folder; build nothing
  --quick          a check of the pipeline, not a measurement: 1 rep, prefill @64 only for the
                   llama.cpp engines, 16 decoded tokens (Glance: 1 rep, 16 decoded tokens)
  --long           also long prompts, every engine: prefill @2048 and @8192 and 64 decoded
                   tokens after 8192 tokens of context (once a round; an estimated 10 min or
                   more a round on 2 threads)
  --long-lengths A,B  the long prompt lengths instead of 2048,8192 (decode after the larger);
                   e.g. 256,512 for a quick check of the --long pipeline
  --ttft           also image 224x224 + 20-token question -> first token: Glance's bench
                   --only ttft against llama.cpp's llama-mtmd-cli -n 1 (the vision tower
                   converted to an f16 mmproj gguf); ik_llama.cpp is not measured here
  -h, --help       this text

Run it with nothing else running on the machine: every engine gets the same cores.
EOF
}

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
HERE="$REPO/tools/bench"
ROUNDS=4
WORK="${XDG_CACHE_HOME:-$HOME/.cache}/glance/side-by-side"
IK_SRC=""
MODEL=""
GLANCE="$REPO/build/release/app/glance-cli"
THREADS=2
SKIP_BUILD=0
QUICK=0
LONG=0
LONG_LENGTHS=2048,8192
TTFT=0
NODE_LLAMA_CPP_VERSION=3.22.1
JOBS=${JOBS:-2}

while [ $# -gt 0 ]; do
  case "$1" in
    --ik) [ $# -ge 2 ] || die "--ik needs a path"; IK_SRC=$2; shift 2 ;;
    --rounds) [ $# -ge 2 ] || die "--rounds needs a number"; ROUNDS=$2; shift 2 ;;
    --work) [ $# -ge 2 ] || die "--work needs a folder"; WORK=$2; shift 2 ;;
    --model) [ $# -ge 2 ] || die "--model needs a folder"; MODEL=$2; shift 2 ;;
    --glance) [ $# -ge 2 ] || die "--glance needs the path of glance-cli"; GLANCE=$2; shift 2 ;;
    --threads) [ $# -ge 2 ] || die "--threads needs a number"; THREADS=$2; shift 2 ;;
    --skip-build) SKIP_BUILD=1; shift ;;
    --quick) QUICK=1; shift ;;
    --long) LONG=1; shift ;;
    --long-lengths) [ $# -ge 2 ] || die "--long-lengths needs A,B"; LONG_LENGTHS=$2; LONG=1; shift 2 ;;
    --ttft) TTFT=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive whole number, not '$ROUNDS'"
[[ "$THREADS" =~ ^[1-9][0-9]*$ ]] || die "--threads must be a positive whole number, not '$THREADS'"
[[ "$LONG_LENGTHS" =~ ^[1-9][0-9]*,[1-9][0-9]*$ ]] || die "--long-lengths must be two token counts A,B, not '$LONG_LENGTHS'"
LONG_A=${LONG_LENGTHS%,*}
LONG_B=${LONG_LENGTHS#*,}
[ "$LONG_A" -lt "$LONG_B" ] || die "--long-lengths A,B needs A < B (decode is measured after B tokens), not '$LONG_LENGTHS'"

for tool in git cmake python3 tar; do
  command -v "$tool" >/dev/null || die "'$tool' not found on PATH"
done
[ -x "$GLANCE" ] || die "glance-cli not found at $GLANCE (build it: cmake --preset release && cmake --build build/release, or pass --glance)"
GLANCE=$(cd "$(dirname "$GLANCE")" && pwd -P)/$(basename "$GLANCE")

WORK=$(realpath -m "$WORK")
case "$WORK/" in "$REPO"/*) die "work folder $WORK is inside the repository; pass --work DIR outside $REPO" ;; esac
mkdir -p "$WORK" || die "cannot create work folder $WORK"
WORK=$(cd "$WORK" && pwd -P)

# The converter needs numpy, torch and yaml; the PATH's python3 may be another one than the system's.
PY=""
for cand in ${PYTHON:-} python3 /usr/bin/python3; do
  if command -v "$cand" >/dev/null && "$cand" -c 'import numpy, torch, yaml' 2>/dev/null; then PY=$(command -v "$cand"); break; fi
done

LLAMA_SRC="$WORK/llama.cpp-src"
LLAMA_BUILD="$WORK/llama.cpp-build"
IK_BUILD="$WORK/ik_llama.cpp-build"
IK_STAMP="$IK_BUILD/glance-sbs-source.txt"
LLAMA_BIN="$LLAMA_BUILD/bin"
IK_BIN="$IK_BUILD/bin"
TIMES="$WORK/build-times.txt"

if command -v ninja >/dev/null; then GEN=(-G Ninja); else GEN=(); fi

elapsed() { local s=$1; echo "$(( ($(date +%s) - s) / 60 )) min $(( ($(date +%s) - s) % 60 )) s"; }

build_targets() {  # name build-dir targets...
  local name=$1 dir=$2; shift 2
  local t0 log="$dir/glance-sbs-build.log"
  t0=$(date +%s)
  say "building $name: $* (nice -n 19, -j$JOBS; log $log)"
  if ! nice -n 19 cmake --build "$dir" -j "$JOBS" --target "$@" >"$log" 2>&1; then
    tail -20 "$log" >&2
    die "building $name failed (log: $log)"
  fi
  echo "$(date -u +%FT%TZ) $name $*: $(elapsed "$t0")" | tee -a "$TIMES" >&2
}

configure() {  # name src build-dir cmake-args...
  local name=$1 src=$2 dir=$3; shift 3
  local log="$dir.configure.log"
  say "configuring $name in $dir"
  if ! nice -n 19 cmake -S "$src" -B "$dir" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
      -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_SERVER=OFF "$@" >"$log" 2>&1; then
    tail -20 "$log" >&2
    die "configuring $name failed (log: $log)"
  fi
}

if [ "$SKIP_BUILD" = 0 ]; then
  [ -n "$IK_SRC" ] || die "--ik PATH not given (clone https://github.com/ikawrakow/ik_llama.cpp and pass its folder)"
  if [ ! -f "$IK_SRC/CMakeLists.txt" ] || [ ! -f "$IK_SRC/examples/llama-bench/llama-bench.cpp" ]; then
    die "$IK_SRC is not an ik_llama.cpp checkout (no CMakeLists.txt or examples/llama-bench/llama-bench.cpp)"
  fi
  IK_SRC=$(cd "$IK_SRC" && pwd -P)

  # llama.cpp: the source node-llama-cpp ships as a git bundle.
  if [ ! -f "$LLAMA_SRC/convert_hf_to_gguf.py" ]; then
    command -v npm >/dev/null || die "'npm' not found on PATH (needed once, to fetch node-llama-cpp@$NODE_LLAMA_CPP_VERSION's llama.cpp bundle)"
    say "fetching node-llama-cpp@$NODE_LLAMA_CPP_VERSION (npm pack) for its llama.cpp git bundle"
    mkdir -p "$WORK/npm"
    (cd "$WORK/npm" && npm pack --silent "node-llama-cpp@$NODE_LLAMA_CPP_VERSION" >/dev/null) \
      || die "npm pack node-llama-cpp@$NODE_LLAMA_CPP_VERSION failed"
    tar -xzf "$WORK/npm/node-llama-cpp-$NODE_LLAMA_CPP_VERSION.tgz" -C "$WORK/npm" package/llama/gitRelease.bundle \
      || die "node-llama-cpp-$NODE_LLAMA_CPP_VERSION.tgz has no package/llama/gitRelease.bundle"
    rm -rf "$LLAMA_SRC"
    git clone -q "$WORK/npm/package/llama/gitRelease.bundle" "$LLAMA_SRC" 2>/dev/null \
      || die "git clone of node-llama-cpp's gitRelease.bundle failed"
  fi
  configure llama.cpp "$LLAMA_SRC" "$LLAMA_BUILD" -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF
  build_targets llama.cpp "$LLAMA_BUILD" llama-bench llama-quantize llama-mtmd-cli

  # ik_llama.cpp: the developer's checkout.
  configure ik_llama.cpp "$IK_SRC" "$IK_BUILD" -DLLAMA_CURL=OFF -DLLAMA_BUILD_EXAMPLES=ON
  build_targets ik_llama.cpp "$IK_BUILD" llama-bench llama-quantize
  {
    echo "source: $IK_SRC"
    echo "commit: $(git -C "$IK_SRC" log -1 --format='%H (%cs) %s' 2>/dev/null || echo unknown)"
    if [ -n "$(git -C "$IK_SRC" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
      echo "worktree: differs from that commit (git status shows changes)"
    fi
  } >"$IK_STAMP"
fi

need_built() {
  for b in "$@"; do
    [ -x "$b" ] || die "$b not built (run without --skip-build, with --work $WORK)"
  done
}
need_built "$LLAMA_BIN/llama-quantize"
LLAMA_COMMIT=$(git -C "$LLAMA_SRC" log -1 --format='%H (%cs)' 2>/dev/null || echo unknown)
IK_COMMIT=$(sed -n 's/^commit: //p' "$IK_STAMP" 2>/dev/null || true)
[ -n "$IK_COMMIT" ] || IK_COMMIT=unknown
IK_DIRTY=""
if grep -q '^worktree:' "$IK_STAMP" 2>/dev/null; then IK_DIRTY=" (working tree differs from it)"; fi

# The model: make-model's random 2B-shaped Qwen3.5, or the folder given.
if [ -z "$MODEL" ]; then
  MODEL="$WORK/model-2b"
  if [ ! -f "$MODEL/model.safetensors" ] || [ ! -f "$MODEL/config.json" ]; then
    say "writing a random 2B-shaped model to $MODEL (glance-cli make-model --shape 2b)"
    t0=$(date +%s)
    nice -n 19 "$GLANCE" make-model --shape 2b --out "$MODEL" --quiet || die "glance-cli make-model failed"
    echo "$(date -u +%FT%TZ) make-model 2b: $(elapsed "$t0")" | tee -a "$TIMES" >&2
  fi
fi
for f in config.json model.safetensors tokenizer.json; do
  [ -f "$MODEL/$f" ] || die "model folder $MODEL has no $f"
done
MODEL=$(cd "$MODEL" && pwd -P)

# Convert (llama.cpp's converter, f16) and quantize (llama-quantize, Q4_0), once per model folder.
GGUF_DIR="$WORK/gguf/$(basename "$MODEL")"
F16="$GGUF_DIR/model-f16.gguf"
Q40="$GGUF_DIR/model-Q4_0.gguf"
STAMP="$GGUF_DIR/source.txt"
SRC_ID="$MODEL $(stat -c '%s %Y' "$MODEL/model.safetensors")"
if [ ! -f "$Q40" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$SRC_ID" ]; then
  [ -n "$PY" ] || die "no python3 with numpy, torch and yaml found (llama.cpp's converter needs them; set PYTHON=...)"
  [ -f "$LLAMA_SRC/convert_hf_to_gguf.py" ] || die "no llama.cpp source in $LLAMA_SRC (run without --skip-build)"
  mkdir -p "$GGUF_DIR"
  rm -f "$Q40" "$F16" "$STAMP"
  say "converting $MODEL to f16 gguf with llama.cpp's convert_hf_to_gguf.py ($PY; log $F16.log)"
  t0=$(date +%s)
  if ! PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$HERE/hf_standin${PYTHONPATH:+:$PYTHONPATH}" nice -n 19 \
      "$PY" "$HERE/convert_qwen35.py" "$LLAMA_SRC" "$MODEL" --outtype f16 --outfile "$F16" >"$F16.log" 2>&1; then
    tail -20 "$F16.log" >&2
    die "convert_hf_to_gguf.py failed (log: $F16.log)"
  fi
  echo "$(date -u +%FT%TZ) convert f16: $(elapsed "$t0")" | tee -a "$TIMES" >&2
  say "quantizing to Q4_0 (llama.cpp's llama-quantize; log $Q40.log)"
  t0=$(date +%s)
  if ! nice -n 19 "$LLAMA_BIN/llama-quantize" "$F16" "$Q40" Q4_0 "$THREADS" >"$Q40.log" 2>&1; then
    tail -20 "$Q40.log" >&2
    die "llama-quantize failed (log: $Q40.log)"
  fi
  echo "$(date -u +%FT%TZ) quantize Q4_0: $(elapsed "$t0")" | tee -a "$TIMES" >&2
  echo "$SRC_ID" >"$STAMP"
fi

# --ttft: the vision tower as llama.cpp's mmproj gguf (the same converter, --mmproj, f16), once per
# model folder, and llama-mtmd-cli to run it.
MMPROJ="$GGUF_DIR/mmproj-f16.gguf"
MMSTAMP="$GGUF_DIR/mmproj-source.txt"
if [ "$TTFT" = 1 ] && { [ ! -f "$MMPROJ" ] || [ "$(cat "$MMSTAMP" 2>/dev/null)" != "$SRC_ID" ]; }; then
  [ -n "$PY" ] || die "no python3 with numpy, torch and yaml found (llama.cpp's converter needs them; set PYTHON=...)"
  [ -f "$LLAMA_SRC/convert_hf_to_gguf.py" ] || die "no llama.cpp source in $LLAMA_SRC (run without --skip-build)"
  mkdir -p "$GGUF_DIR"
  rm -f "$MMPROJ" "$MMSTAMP"
  say "converting $MODEL's vision tower to an f16 mmproj gguf (convert_hf_to_gguf.py --mmproj; log $MMPROJ.log)"
  t0=$(date +%s)
  if ! PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$HERE/hf_standin${PYTHONPATH:+:$PYTHONPATH}" nice -n 19 \
      "$PY" "$HERE/convert_qwen35.py" "$LLAMA_SRC" "$MODEL" --mmproj --outtype f16 --outfile "$MMPROJ" >"$MMPROJ.log" 2>&1; then
    tail -20 "$MMPROJ.log" >&2
    die "convert_hf_to_gguf.py --mmproj failed (log: $MMPROJ.log)"
  fi
  echo "$(date -u +%FT%TZ) convert mmproj f16: $(elapsed "$t0")" | tee -a "$TIMES" >&2
  echo "$SRC_ID" >"$MMSTAMP"
fi

# The rounds.
need_built "$LLAMA_BIN/llama-bench" "$IK_BIN/llama-bench"
[ "$TTFT" = 0 ] || need_built "$LLAMA_BIN/llama-mtmd-cli"
if [ "$QUICK" = 1 ]; then
  LB_ARGS=(-t "$THREADS" -p 64 -n 16 -r 1 -o json)
  GL_ARGS=(--threads "$THREADS" --reps 1 --decode-tokens 16)
  TTFT_REPS=1
else
  LB_ARGS=(-t "$THREADS" -p "64,512" -n 64 -r 3 -o json)
  GL_ARGS=(--threads "$THREADS" --reps 3 --decode-tokens 64)
  TTFT_REPS=3
fi
IK_EXTRA=(-rtr 1 -fa 1)
# --long: each long figure is one run a round (Glance's bench runs each long prompt once, then
# LONG_DECODE decode steps at that context), so llama-bench runs -r 1 and generates as many
# tokens at depth. 64, not 16: 16 steps are half a second, and on a shared VM one slow second
# moved a round's ratio by a third (0.95-1.66x over four rounds). Glance's --only decode
# --decode-tokens 1 is the cheapest stage that lets the long prompts run alone.
LONG_DECODE=64
GL_LONG_ARGS=(--threads "$THREADS" --reps 1 --only decode --decode-tokens 1 --long-prompts "$LONG_A,$LONG_B"
              --long-decode-tokens "$LONG_DECODE")
LB_LONG_ARGS=(-t "$THREADS" -p "$LONG_A,$LONG_B" -n 0 -r 1 -o json)
LB_DEPTH_ARGS=(-t "$THREADS" -p 0 -n "$LONG_DECODE" -d "$LONG_B" -r 1 -o json)
IK_LONG_ARGS=(-t "$THREADS" -p "$LONG_A,$LONG_B" -n 0 -gp "$LONG_B,$LONG_DECODE" -r 1 -o json)
STAMP_NOW=$(date -u +%Y%m%dT%H%M%SZ)
OUT="$WORK/results/$STAMP_NOW"
mkdir -p "$OUT"

# --ttft: the same 224x224 picture for llama-mtmd-cli (Glance's bench makes its own; the pixels
# do not change the work) and Glance's question: core/engine/bench.cpp's words, added until the model's
# tokenizer gives 20 tokens.
if [ "$TTFT" = 1 ]; then
  IMG="$OUT/image-224.ppm"
  "${PY:-python3}" -c '
import sys
w = h = 224
px = bytes(v for y in range(h) for x in range(w) for v in ((x * 7 + y * 3) % 256, (x * y) % 256, (x + 2 * y) % 256))
open(sys.argv[1], "wb").write(b"P6\n%d %d\n255\n" % (w, h) + px)' "$IMG" || die "writing $IMG failed"
  QUESTION=""
  Q_TOKENS=0
  WORDS=("Describe" "this" "picture" "in" "detail:" "which" "objects" "are" "visible," "what" "colours"
         "dominate," "where" "is" "the" "light" "coming" "from" "and" "what" "is" "happening" "right"
         "now" "in" "the" "scene?")
  for w in "${WORDS[@]}"; do
    QUESTION="${QUESTION:+$QUESTION }$w"
    Q_TOKENS=$(printf '%s' "$QUESTION" | "$GLANCE" tokenize "$MODEL" | tr -cd ',' | wc -c) \
      || die "glance-cli tokenize $MODEL failed"
    Q_TOKENS=$((Q_TOKENS + 1))
    [ "$Q_TOKENS" -lt 20 ] || break
  done
  printf '%s\n' "$QUESTION" >"$OUT/ttft-question.txt"
  MTMD_ARGS=(-m "$Q40" --mmproj "$MMPROJ" --image "$IMG" -p "$QUESTION" -n 1 -t "$THREADS" -c 4096 --temp 0 --perf -lv 4)
fi

run_cmd() {  # tag round command...: stdout to round<r>-<tag>.json, stderr to .log
  local tag=$1 r=$2; shift 2
  local json="$OUT/round$r-$tag.json" log="$OUT/round$r-$tag.log"
  echo "$*" >"$OUT/round$r-$tag.cmd"
  say "round $r/$ROUNDS: $tag"
  if ! "$@" >"$json" 2>"$log"; then
    tail -15 "$log" >&2
    die "$tag failed in round $r: $* (log: $log)"
  fi
}

run_engine() {  # engine round
  local e=$1 r=$2 i
  case "$e" in
    glance)
      run_cmd glance "$r" "$GLANCE" bench --model "$MODEL" --precision q4 "${GL_ARGS[@]}" --only "prefill,decode" --json
      [ "$LONG" = 0 ] || run_cmd glance-long "$r" "$GLANCE" bench --model "$MODEL" --precision q4 "${GL_LONG_ARGS[@]}" --json
      [ "$TTFT" = 0 ] || run_cmd glance-ttft "$r" "$GLANCE" bench --model "$MODEL" --precision q4 \
        --threads "$THREADS" --reps "$TTFT_REPS" --only ttft --json
      ;;
    llama)
      run_cmd llama "$r" "$LLAMA_BIN/llama-bench" -m "$Q40" "${LB_ARGS[@]}"
      if [ "$LONG" = 1 ]; then
        run_cmd llama-long "$r" "$LLAMA_BIN/llama-bench" -m "$Q40" "${LB_LONG_ARGS[@]}"
        run_cmd llama-depth "$r" "$LLAMA_BIN/llama-bench" -m "$Q40" "${LB_DEPTH_ARGS[@]}"
      fi
      if [ "$TTFT" = 1 ]; then  # a fresh process each rep; its own printed timings (side_by_side_table.py)
        for i in $(seq 1 "$TTFT_REPS"); do
          run_cmd "mtmd-ttft-$i" "$r" "$LLAMA_BIN/llama-mtmd-cli" "${MTMD_ARGS[@]}"
        done
      fi
      ;;
    ik)
      run_cmd ik "$r" "$IK_BIN/llama-bench" -m "$Q40" "${LB_ARGS[@]}" "${IK_EXTRA[@]}"
      [ "$LONG" = 0 ] || run_cmd ik-long "$r" "$IK_BIN/llama-bench" -m "$Q40" "${IK_LONG_ARGS[@]}" "${IK_EXTRA[@]}"
      ;;
  esac
}

LOAD=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?")
say "load average before the rounds: $LOAD on $(nproc) CPUs (it should be near 0: nothing else running)"
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then order=(glance llama ik); else order=(ik llama glance); fi
  for e in "${order[@]}"; do run_engine "$e" "$r"; done
done

CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
GLANCE_COMMIT=$(git -C "$REPO" log -1 --format='%h (%cs)' 2>/dev/null || echo unknown)
{
  echo "# Glance vs llama.cpp vs ik_llama.cpp, side by side"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: ${CPU:-unknown CPU}, $(nproc) CPUs; load average before: $LOAD"
  echo "- model: $MODEL (Glance reads it; llama.cpp and ik_llama.cpp read $(basename "$Q40"), converted by llama.cpp's convert_hf_to_gguf.py to f16, then llama-quantize Q4_0)"
  echo "- Glance: $GLANCE, commit $GLANCE_COMMIT: \`bench --precision q4 ${GL_ARGS[*]} --only prefill,decode --json\`"
  echo "- llama.cpp: node-llama-cpp $NODE_LLAMA_CPP_VERSION's git bundle, commit $LLAMA_COMMIT: \`llama-bench ${LB_ARGS[*]}\`"
  echo "- ik_llama.cpp: commit $IK_COMMIT$IK_DIRTY: \`llama-bench ${LB_ARGS[*]} ${IK_EXTRA[*]}\`"
  if [ "$LONG" = 1 ]; then
    echo "- --long: Glance \`bench --precision q4 ${GL_LONG_ARGS[*]} --json\` (each long prompt once, then $LONG_DECODE decode steps at that context); llama.cpp \`llama-bench ${LB_LONG_ARGS[*]}\` and \`llama-bench ${LB_DEPTH_ARGS[*]}\`; ik_llama.cpp \`llama-bench ${IK_LONG_ARGS[*]} ${IK_EXTRA[*]}\`"
  fi
  if [ "$TTFT" = 1 ]; then
    echo "- --ttft: Glance \`bench --precision q4 --threads $THREADS --reps $TTFT_REPS --only ttft --json\`; llama.cpp \`llama-mtmd-cli -m $(basename "$Q40") --mmproj $(basename "$MMPROJ") --image image-224.ppm -p \"$QUESTION\" -n 1 -t $THREADS -c 4096 --temp 0 --perf -lv 4\`, $TTFT_REPS run(s) a round, each a fresh process; its time to first token is the time between its log lines 'main: loading model' (model and mmproj loaded and warmed up) and the llama_perf_context_print report (after the first token), less its 'eval time'; question: $Q_TOKENS tokens; ik_llama.cpp: not measured"
  fi
  echo "- $ROUNDS rounds; odd rounds Glance, llama.cpp, ik_llama.cpp, even rounds reversed$([ "$QUICK" = 1 ] && echo "; --quick: a pipeline check, not a measurement")"
  echo "- each engine's figure in a round is the median of its reps; ratios are per round, then their median (min–max) over rounds"
  echo
  TABLE_ARGS=()
  [ "$LONG" = 0 ] || TABLE_ARGS+=(--long "$LONG_A,$LONG_B")
  [ "$TTFT" = 0 ] || TABLE_ARGS+=(--ttft "$TTFT_REPS")
  "${PY:-python3}" "$HERE/side_by_side_table.py" "$OUT" "$ROUNDS" "${TABLE_ARGS[@]}"
} >"$OUT/summary.md" || die "summarising the results in $OUT failed"
cat "$OUT/summary.md"
say "results: $OUT (summary.md, per-round JSON, logs and commands)"
