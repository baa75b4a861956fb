#!/usr/bin/env bash
# Times `ossa bake` (import + optimise + build + save) over the clip set with hyperfine, then
# bakes each clip once more with -v for where the time and memory go: a table of the stages
# (import, prepare, search, verify, write; wall seconds, the process's CPU seconds in
# brackets), the build's peak allocated bytes and the peak RSS (docs/benchmarks.md).
#   bash bench/bake.sh [BUILD_DIR]      (default: build; data directory of docs/benchmarks.md in OSSA_SHARED_DATA)
# With OSSA_OZZ_SRC (an ozz-animation source tree) and the clips bench/compare.sh resampled
# under BUILD_DIR/compare/clips, ozz's ruby (368 joints) and baked (1,007 joints) are baked
# too. OSSA_BAKE_THREADS sets --threads (default: the tool's, the online CPUs).
# OSSA_BAKE_LONG=N adds a long capture: CMU 01_01's frames N times over (40: 83 MB, 917 s),
# baked once at --threads 1 for its CPU time and peak RSS against the file's size.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${1:-build}
ossa=$(realpath "$build/tools/ossa")
if [[ -z ${OSSA_SHARED_DATA:-} ]]; then
  echo "bake.sh: set OSSA_SHARED_DATA to the data directory of docs/benchmarks.md" >&2
  exit 1
fi
shared=$(realpath "$OSSA_SHARED_DATA")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
threads=()
[[ -n ${OSSA_BAKE_THREADS:-} ]] && threads=(--threads "$OSSA_BAKE_THREADS")
# shellcheck source=bench/bake_clips.sh
source bench/bake_clips.sh
bake_clips "$shared" "$build/compare/clips"
commands=()
for i in "${!names[@]}"; do commands+=("$ossa bake ${inputs[$i]} -o $out/${names[$i]}.ossa ${threads[*]} -q"); done
args=()
for i in "${!commands[@]}"; do args+=(-n "${names[$i]}" "${commands[$i]}"); done
hyperfine --warmup 1 --runs 10 --style basic --export-markdown "$out/bake.md" "${args[@]}" >/dev/null
cat "$out/bake.md"

# One -v bake per clip: "stage NAME WALL s CPU CPU s ..." lines.
echo
echo "| clip | import s | prepare s | search s | verify s | write s | total s (CPU) | build peak MB | peak RSS MB |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for i in "${!commands[@]}"; do
  ${commands[$i]} -v | awk -v name="${names[$i]}" '
    $1 == "stage" { wall[$2] = $3; cpu[$2] = $6 }
    $1 == "stage" && $2 == "search" { for (k = 1; k <= NF; ++k) if ($k == "peak") peak = $(k + 1) }
    $1 == "stage" && $2 == "total" { for (k = 1; k <= NF; ++k) if ($k == "RSS") rss = $(k + 1) }
    END {
      printf "| %s |", name
      split("import prepare search verify write", order, " ")
      for (k = 1; k <= 5; ++k) printf " %s (%s) |", wall[order[k]], cpu[order[k]]
      printf " %s (%s) | %s | %s |\n", wall["total"], cpu["total"], peak, rss
    }'
done

# A long capture: 01_01's hierarchy, then its frames N times over.
if [[ -n ${OSSA_BAKE_LONG:-} ]]; then
  long=$out/cmu_long.bvh
  awk -v n="$OSSA_BAKE_LONG" '
    motion == 0 { print; if ($1 == "MOTION") motion = 1; next }
    motion == 1 && $1 == "Frames:" { frames = $2; next }
    motion == 1 && $1 == "Frame" { time = $0; motion = 2; next }
    motion == 2 && NF { line[count++] = $0 }
    END {
      printf "Frames: %d\n%s\n", frames * n, time
      for (r = 0; r < n; ++r) for (i = 0; i < count; ++i) print line[i]
    }' /usr/share/assimp/models/BVH/01_01.bvh >"$long"
  bytes=$(stat -c %s "$long")
  echo
  echo "| long capture | file MB | CPU s (user + sys) | peak RSS MB | RSS / file |"
  echo "|---|---:|---:|---:|---:|"
  /usr/bin/time -f '%U %S %M' -o "$out/long.time" "$ossa" bake "$long" --unit-scale 0.05644 --threads 1 -q \
    -o "$out/long.ossa" >/dev/null || true
  read -r user sys kb <"$out/long.time"
  awk -v n="$OSSA_BAKE_LONG" -v b="$bytes" -v u="$user" -v s="$sys" -v k="$kb" 'BEGIN {
    printf "| 01_01 x %d | %.1f | %.2f | %.1f | %.2f |\n", n, b / 1e6, u + s, k * 1024 / 1e6, k * 1024 / b }'
fi
