#!/usr/bin/env bash
# Instructions per call of each ossa-bench measure under callgrind, next to ozz-animation's
# figures from docs/benchmarks.md. Only the measured loop (one repetition) is instrumented.
#   bash bench/callgrind.sh [BUILD_DIR [TOLERANCE_METRES]]   (default: build, 0.0001)
set -euo pipefail
build=${1:-build}
tolerance=${2:-0.0001}
bench=$build/bench/ossa-bench
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '| measure | clip | ossa Ir/call | ozz Ir/call | ossa/ozz |\n|---|---|---:|---:|---:|\n'
"$bench" --list | while IFS=$'\t' read -r index label clip ozz_ir ozz_ns; do
  calls=$(valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out/cg.$index" \
    "$bench" --only "$index" --tolerance "$tolerance" 2>/dev/null | awk '/^calls/ {print $2}')
  if [[ -z $calls ]]; then
    printf '| %s | %s | skipped | %s | |\n' "$label" "$clip" "$ozz_ir"
    continue
  fi
  total=$(awk '/^totals:/ {print $2; exit}' "$out/cg.$index")
  awk -v l="$label" -v c="$clip" -v t="$total" -v n="$calls" -v o="$ozz_ir" \
    'BEGIN { ir = t / n; if (o > 0) printf "| %s | %s | %.0f | %.0f | %.2f |\n", l, c, ir, o, ir / o;
             else printf "| %s | %s | %.0f | | |\n", l, c, ir }'
done
