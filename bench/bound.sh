#!/usr/bin/env bash
# The tolerance as a bound: bakes each real clip at 0.05, 0.1, 1 and 10 mm and measures every
# archive with `ossa info --against` (the figure a user sees), next to the figure `ossa bake`
# printed for it. A row whose info figure is above its tolerance is marked "OVER" and makes the
# script exit 1 (docs/benchmarks.md, docs/error-metric.md).
#
#   bash bench/bound.sh BUILD_DIR [TOLERANCE_M...]     (default tolerances: 5e-05 0.0001 0.001 0.01)
#
# Data: the data directory of docs/benchmarks.md, given with OSSA_SHARED_DATA, and the BVH
# files of Debian's assimp-testmodels (override their folder with OSSA_BVH_DIR). Missing files
# are skipped and clips that `ossa bake` refuses are listed as refused; the reason goes to
# stderr. Needs jq (`ossa info --json` gives the figure at full precision).
set -euo pipefail

if (($# < 1)) || [[ $1 == -h || $1 == --help ]]; then
  sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  (($# >= 1)) && exit 0 || exit 2
fi
ossa=$1/tools/ossa
shift
[[ -x $ossa ]] || { echo "bound.sh: $ossa not found (build first)" >&2; exit 1; }
command -v jq >/dev/null || { echo "bound.sh: jq is required" >&2; exit 1; }
data=${OSSA_SHARED_DATA:-${OSSA_DATA_DIR:-}}
[[ -n $data ]] || { echo "bound.sh: set OSSA_SHARED_DATA to the data directory of docs/benchmarks.md" >&2; exit 1; }
bvh=${OSSA_BVH_DIR:-/usr/share/assimp/models/BVH}
tolerances=("$@")
((${#tolerances[@]})) || tolerances=(5e-05 0.0001 0.001 0.01)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One clip: a name, its file and the options that both bake and info take.
run_clip() { # NAME FILE [OPTION...]
  local name=$1 file=$2 t log built info mm bake_mm ms bytes anim_bytes pct verdict
  shift 2
  if [[ ! -f $file ]]; then
    echo "skipped: $name: $file not found" >&2
    return
  fi
  for t in "${tolerances[@]}"; do
    log=$out/$name.log
    if ! "$ossa" bake "$file" "$@" --tolerance "$t" -o "$out/$name.ossa" >"$log" 2>&1; then
      echo "refused: $name: $(grep -m1 '^ossa' "$log" || head -n1 "$log")" >&2
      printf '| %s | %g | refused | | | | | | |\n' "$name" "$(awk -v t="$t" 'BEGIN { print t * 1000 }')"
      return
    fi
    built=$(grep '^built ' "$log" || true)
    [[ -n $built ]] || { echo "skipped: $name: no error-bounded animation" >&2; return; }
    bake_mm=$(sed -n 's/.*measured max \([0-9.eE+-]*\) mm.*/\1/p' <<<"$built" | sort -g | tail -n1)
    ms=$(sed -n 's/.*build \([0-9.]*\) ms).*/\1/p' "$log")
    bytes=$(stat -c %s "$out/$name.ossa")
    info=$("$ossa" info "$out/$name.ossa" --against "$file" "$@" --json)
    mm=$(jq '[.animations[].errors.vertices.max_mm] | max' <<<"$info")
    anim_bytes=$(jq '[.animations[].baked_bytes] | add' <<<"$info")
    read -r pct verdict < <(awk -v e="$mm" -v t="$t" 'BEGIN { p = e / (t * 1000) * 100;
      printf "%.1f %s\n", p, (e <= t * 1000 ? "ok" : "OVER") }')
    [[ $verdict == ok ]] || over=1
    printf '| %s | %g | %d | %d | %s | %s | %.6g | %s | %s |\n' "$name" "$(awk -v t="$t" 'BEGIN { print t * 1000 }')" \
      "$anim_bytes" "$bytes" "$ms" "$bake_mm" "$mm" "$pct" "$verdict"
  done
}

over=0
echo "| clip | tolerance (mm) | animation bytes | archive bytes | build (ms) | bake's max (mm) | info's max (mm) | % of tolerance | bound |"
echo "|---|---|---|---|---|---|---|---|---|"
for c in walk jog run atlas; do
  run_clip "pab_$c" "$data/ozz/pab_${c}_raw.ozz" --skeleton "$data/ozz/pab_skeleton.ozz"
done
run_clip 01_01 "$bvh/01_01.bvh" --unit-scale 0.05644
run_clip 01_03 "$bvh/01_03.bvh" --unit-scale 0.05644
run_clip Boxing_Toes "$bvh/Boxing_Toes.bvh"
run_clip cesium_man "$data/gltf/cesium_man.gltf"
for f in "$data"/maya/*.anim; do
  [[ -f $f ]] && run_clip "$(basename "$f" .anim)" "$f"
done
exit "$over"
