#!/usr/bin/env bash
# Times `ossa bake` (import + optimise + build + save) over the clip set with hyperfine.
#   bash bench/bake.sh [BUILD_DIR]      (default: build; data directory of docs/benchmarks.md in OSSA_SHARED_DATA)
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
skel="$shared/ozz/pab_skeleton.ozz"
commands=()
names=()
for clip in walk jog run atlas; do
  names+=("pab_$clip")
  commands+=("$ossa bake $shared/ozz/pab_${clip}_raw.ozz --skeleton $skel -o $out/$clip.ossa -q")
done
names+=(cmu_01_01)
commands+=("$ossa bake /usr/share/assimp/models/BVH/01_01.bvh --unit-scale 0.05644 -o $out/01_01.ossa -q")
args=()
for i in "${!commands[@]}"; do args+=(-n "${names[$i]}" "${commands[$i]}"); done
hyperfine --warmup 1 --runs 10 --style basic --export-markdown "$out/bake.md" "${args[@]}" >/dev/null
cat "$out/bake.md"
