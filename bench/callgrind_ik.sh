#!/usr/bin/env bash
# Instructions per call of each ossa-bench-ik measure under callgrind, next to ozz-animation's
# figures from docs/benchmarks.md. Only the measured loop (one repetition) is instrumented.
#   bash bench/callgrind_ik.sh [BUILD_DIR]   (default: build; data from OSSA_SHARED_DATA)
set -euo pipefail
build=${1:-build}
bench=$build/bench/ossa-bench-ik
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '| measure | ossa Ir/call | ozz Ir/call | ossa/ozz |\n|---|---:|---:|---:|\n'
"$bench" --list | while IFS=$'\t' read -r index label clip ozz_ir ozz_ns; do
  calls=$(valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out/cg.$index" \
    "$bench" --only "$index" 2>/dev/null | awk '/^calls/ {print $2}')
  if [[ -z $calls ]]; then
    printf '| %s | skipped | %s | |\n' "$label" "$ozz_ir"
    continue
  fi
  total=$(awk '/^totals:/ {print $2; exit}' "$out/cg.$index")
  awk -v l="$label" -v t="$total" -v n="$calls" -v o="$ozz_ir" \
    'BEGIN { ir = t / n; if (o > 0) printf "| %s | %.0f | %.0f | %.2f |\n", l, ir, o, ir / o;
             else printf "| %s | %.0f | | |\n", l, ir }'
done
