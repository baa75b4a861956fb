#!/usr/bin/env bash
# Instructions per vertex of each ossa-bench-skinning measure under callgrind, next to
# ozz-animation's SkinningJob figures from docs/benchmarks.md. Only the measured loop (one
# repetition) is instrumented.
#   bash bench/callgrind_skinning.sh [BUILD_DIR]   (default: build)
set -euo pipefail
build=${1:-build}
bench=$build/bench/ossa-bench-skinning
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '| measure | ossa Ir/vertex | ozz Ir/vertex | ossa/ozz |\n|---|---:|---:|---:|\n'
"$bench" --list | while IFS=$'\t' read -r index label ozz_ir ozz_ns; do
  vertices=$(valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out/cg.$index" \
    "$bench" --only "$index" 2>/dev/null | awk '/^vertices/ {print $2}')
  if [[ -z $vertices ]]; then
    printf '| %s | skipped | %s | |\n' "$label" "$ozz_ir"
    continue
  fi
  total=$(awk '/^totals:/ {print $2; exit}' "$out/cg.$index")
  awk -v l="$label" -v t="$total" -v n="$vertices" -v o="$ozz_ir" \
    'BEGIN { ir = t / n; if (o > 0) printf "| %s | %.1f | %.0f | %.2f |\n", l, ir, o, ir / o;
             else printf "| %s | %.1f | | |\n", l, ir }'
done
