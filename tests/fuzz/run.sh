#!/usr/bin/env bash
# Builds the libFuzzer harnesses (the `fuzz` CMake preset: clang-14, ASan + UBSan) and runs each
# for a given time, one after another, single process. Each harness keeps its corpus in
# <build>/corpus/<harness> (seeded from tests/fuzz/seeds and tests/data), so later runs go on
# from where earlier ones stopped; a crash, leak, timeout or sanitizer report leaves its input in
# <build>/artifacts/<harness>/ and makes the script exit non-zero.
#
#   tests/fuzz/run.sh [--smoke | SECONDS] [HARNESS...]
#     --smoke     30 s per harness (what CI runs)
#     SECONDS     time per harness (default 300)
#     HARNESS     e.g. image tokenizer_load (default: all)
#   FUZZ_BUILD_DIR  build folder (default build/fuzz)
#   FUZZ_ARGS       extra libFuzzer flags, e.g. "-jobs=4 -workers=4" for a long campaign
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=300
if [[ "${1:-}" == "--smoke" ]]; then seconds=30; shift
elif [[ "${1:-}" =~ ^[0-9]+$ ]]; then seconds=$1; shift
fi
build=${FUZZ_BUILD_DIR:-build/fuzz}

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake --preset fuzz -B "$build" "${launcher[@]}" >/dev/null
fi
cmake --build "$build" --target fuzz_all -j"${FUZZ_BUILD_JOBS:-$(nproc)}"

all=$(cd "$build/tests/fuzz" && ls fuzz_*.seeds | sed 's/^fuzz_//; s/\.seeds$//')
harnesses=("$@")
if ((${#harnesses[@]} == 0)); then read -r -d '' -a harnesses <<<"$all" || true; fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
summary=()
for h in "${harnesses[@]}"; do
  bin="$build/tests/fuzz/fuzz_$h"
  [[ -x "$bin" ]] || { echo "run.sh: no harness '$h' (have: $(echo $all))" >&2; exit 2; }
  corpus="$build/corpus/$h"
  artifacts="$build/artifacts/$h"
  mkdir -p "$corpus" "$artifacts"
  # Seeds: every file listed in fuzz_<h>.seeds (a folder contributes its files).
  while IFS= read -r src; do
    [[ -z "$src" ]] && continue
    if [[ -d "$src" ]]; then cp -n "$src"/* "$corpus"/ 2>/dev/null || true
    elif [[ -f "$src" ]]; then cp -n "$src" "$corpus"/; fi
  done <"$build/tests/fuzz/fuzz_$h.seeds"
  log="$build/fuzz_$h.log"
  echo "== fuzz_$h: ${seconds}s, corpus $corpus"
  # -timeout: one input may take at most 20 s (a slow input is a finding: a hang);
  # -rss_limit_mb / -malloc_limit_mb: memory out of proportion to an input is a finding too.
  # shellcheck disable=SC2086
  if "$bin" "$corpus" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 -malloc_limit_mb=2048 \
       -artifact_prefix="$artifacts/" -print_final_stats=1 ${FUZZ_ARGS:-} >"$log" 2>&1; then
    status=ok
  else
    status=FAILED
    failed+=("$h")
    grep -E "ERROR|SUMMARY|Test unit written|runtime error" "$log" | head -5 || true
  fi
  execs=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$" | tail -1 || true)
  files=$(find "$corpus" -type f | wc -l)
  summary+=("$(printf '%-20s %-7s execs %-10s corpus %s files' "$h" "$status" "${execs:-?}" "$files")")
done
printf '%s\n' "${summary[@]}"
if ((${#failed[@]})); then
  echo "run.sh: findings in ${failed[*]} (inputs in $build/artifacts/; logs $build/fuzz_*.log)" >&2
  exit 1
fi
