#!/usr/bin/env bash
# Crowd benchmark: ossa-crowd over crowd sizes 1, 10, 100, 1000 and 1 to all online cores,
# a gnuplot SVG of the result and hyperfine timings of fixed-work runs (docs/benchmarks.md).
#
#   bash bench/crowd.sh [BUILD_DIR [OUT_DIR [SVG]]]
#     BUILD_DIR  meson build directory holding bench/ossa-crowd (default: build)
#     OUT_DIR    where crowd.tsv, crowd.md and crowd_hyperfine.md go (default: BUILD_DIR/crowd)
#     SVG        the plot (default: docs/crowd.svg of this checkout)
#
# Data: the data directory of docs/benchmarks.md in OSSA_SHARED_DATA. Each ossa-crowd cell
# runs about 0.2 s of single-thread work three times; the whole script takes well under a
# minute on a 2-core machine. Wall-clock figures on shared machines drift: compare rows of one
# run.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-build}
out=${2:-$build/crowd}
svg=${3:-$repo/docs/crowd.svg}
crowd=$build/bench/ossa-crowd
if [[ ! -x $crowd ]]; then
  echo "crowd.sh: $crowd not found (meson setup $build -Dbench=true && ninja -C $build)" >&2
  exit 1
fi
if [[ -z ${OSSA_SHARED_DATA:-} ]]; then
  echo "crowd.sh: set OSSA_SHARED_DATA to the data directory of docs/benchmarks.md" >&2
  exit 1
fi
crowd=$(cd "$(dirname "$crowd")" && pwd)/ossa-crowd
mkdir -p "$out" "$(dirname "$svg")"
out=$(cd "$out" && pwd)
svg=$(cd "$(dirname "$svg")" && pwd)/$(basename "$svg")
cores=$(nproc)
threads=$(seq -s ' ' 1 "$cores")

{
  echo "ossa-crowd on $(uname -m), $cores online cores, $(cc --version | head -n 1), commit $(git -C "$repo" rev-parse --short HEAD)"
  echo
  "$crowd" --characters 1,10,100,1000 --tsv "$out/crowd.tsv"
} | tee "$out/crowd.md"

if command -v gnuplot >/dev/null; then
  (cd "$out" && gnuplot -e "threads='$threads'; outfile='$svg'" "$repo/bench/crowd.gnuplot")
  echo "plot: $svg"
else
  echo "crowd.sh: gnuplot not found, no plot" >&2
fi

# Fixed work for hyperfine: 1,000 characters for 60 frames (one second of animation) on 1
# and on all cores; the same command for 1 frame on one thread, which is the fixed cost of
# those runs (loading and baking the four clips, then setting up the 1,000 characters and their
# warm-up frames on one thread); and, as a check of the machine rather than of ossa, as many
# independent single-thread processes as cores at once (on an idle machine with that many
# cores this takes as long as one of them).
if command -v hyperfine >/dev/null; then
  one="$crowd --characters 1000 --threads 1 --frames 60 --repeat 1"
  args=(-n "fixed cost (1000 characters x 1 frame, 1 thread)" "$crowd --characters 1000 --threads 1 --frames 1 --repeat 1")
  for t in $threads; do
    args+=(-n "1000 characters x 60 frames, $t thread(s)" "$crowd --characters 1000 --threads $t --frames 60 --repeat 1")
  done
  args+=(-n "$cores such single-thread processes at once" "bash -c '$(printf "$one >/dev/null & %.0s" $(seq "$cores")) wait'")
  hyperfine --warmup 1 --runs 5 --style basic --export-markdown "$out/crowd_hyperfine.md" "${args[@]}" >/dev/null
  cat "$out/crowd_hyperfine.md"
else
  echo "crowd.sh: hyperfine not found, no timings" >&2
fi
