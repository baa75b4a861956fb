#!/usr/bin/env bash
# CPU time of `ossa bake` with two builds on the same clips, round by round in turn on one
# pinned core, for a before/after figure on a machine whose load moves single timings:
#   bash bench/bake_ab.sh OLD_BUILD NEW_BUILD [ROUNDS]
# OLD_BUILD and NEW_BUILD are build directories (each with its tools/ossa); ROUNDS defaults to
# 21 (baked: a third as many). The clips are bench/bake.sh's: the four pab clips and CMU 01_01
# from the data directory in OSSA_SHARED_DATA, and with OSSA_OZZ_SRC (an ozz-animation source
# tree) ozz's ruby and baked and the synthetic 1,024-joint clip as bench/compare.sh resampled
# them under NEW_BUILD/compare/clips. Each bake is `--threads 1 -q` at the default tolerance;
# its CPU time is perf's task-clock (user and kernel, milliseconds). Per clip: the medians of
# both builds and of the per-round ratio new/old, with the ratios' spread (docs/error-metric.md,
# "Where a bake's time goes").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [[ $# -lt 2 ]]; then
  echo "usage: bash bench/bake_ab.sh OLD_BUILD NEW_BUILD [ROUNDS]" >&2
  exit 2
fi
old=$(realpath "$1/tools/ossa")
new=$(realpath "$2/tools/ossa")
rounds=${3:-21}
if [[ -z ${OSSA_SHARED_DATA:-} ]]; then
  echo "bake_ab.sh: set OSSA_SHARED_DATA to the data directory of docs/benchmarks.md" >&2
  exit 1
fi
command -v perf >/dev/null || { echo "bake_ab.sh: needs perf (Debian: linux-perf)" >&2; exit 1; }
shared=$(realpath "$OSSA_SHARED_DATA")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# shellcheck source=bench/bake_clips.sh
source bench/bake_clips.sh
bake_clips "$shared" "$2/compare/clips" synthetic
# One bake's task-clock in milliseconds.
cpu_ms() {
  local tool=$1
  shift
  # shellcheck disable=SC2048,SC2086 # the input and its options, split into words
  perf stat -x, -e task-clock taskset -c 1 "$tool" bake $* -o "$out/x.ossa" --threads 1 -q 2>&1 >/dev/null |
    awk -F, '$3 == "task-clock" || $3 ~ /^task-clock/ { print $1 }'
}
echo "| clip | rounds | old ms | new ms | new / old (spread) |"
echo "|---|---:|---:|---:|---:|"
for i in "${!names[@]}"; do
  n=$rounds
  [[ ${names[$i]} == baked ]] && n=$(((rounds + 2) / 3))
  for ((r = 0; r < n; ++r)); do
    echo "$(cpu_ms "$old" "${inputs[$i]}") $(cpu_ms "$new" "${inputs[$i]}")"
  done | awk -v name="${names[$i]}" '
    { a[NR] = $1; b[NR] = $2; q[NR] = $2 / $1 }
    function median(v, n,    i, j, t, w) {
      for (i = 1; i <= n; ++i) w[i] = v[i]
      for (i = 2; i <= n; ++i) for (j = i; j > 1 && w[j - 1] > w[j]; --j) { t = w[j]; w[j] = w[j - 1]; w[j - 1] = t }
      return n % 2 ? w[(n + 1) / 2] : (w[n / 2] + w[n / 2 + 1]) / 2
    }
    END {
      lo = q[1]; hi = q[1]
      for (i = 2; i <= NR; ++i) { if (q[i] < lo) lo = q[i]; if (q[i] > hi) hi = q[i] }
      printf "| %s | %d | %.1f | %.1f | %.3f (%.3f-%.3f) |\n", name, NR, median(a, NR), median(b, NR), median(q, NR), lo, hi
    }'
done
