#!/usr/bin/env bash
# The two key layouts side by side (docs/benchmarks.md, "Packed and sorted keys"): each clip baked
# with `ossa bake --layout packed` and `--layout sorted` at the same tolerance, then per layout
# the animation's bytes and keys, the error `ossa info --against` measures, and from
# `ossa bench --json` the ns per call of forward playback at 60 Hz (with the recommended context
# and with the smallest one), backward playback and random ratios, and the context bytes.
#
#   bash bench/layouts.sh BUILD_DIR [TOLERANCE_M]      (default tolerance: 0.0001)
#
# Clips: pab walk, jog, run and atlas (OSSA_SHARED_DATA, the data directory of
# docs/benchmarks.md), CMU 01_01 (OSSA_CMU_BVH, default Debian's assimp-testmodels), and the
# dense clips bench/compare.sh writes to BUILD_DIR/compare/clips (ozz-animation's 1,007-joint
# "baked", whose skeleton is read from OSSA_OZZ_MEDIA, ozz-animation 0.16's media/bin, and the
# synthetic 1,024-joint clip; override the folder with OSSA_COMPARE_CLIPS).
# OSSA_LAYOUT_CLIPS="NAME..." runs only those clips (names as in the table).
# Missing files are skipped with a line on stderr. Needs jq. Timings are thread CPU time, the
# median of `ossa bench`'s rounds (OSSA_BENCH_ROUNDS, default 7).
set -euo pipefail

if (($# < 1)) || [[ $1 == -h || $1 == --help ]]; then
  sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  (($# >= 1)) && exit 0 || exit 2
fi
build=$(realpath "$1")
ossa=$build/tools/ossa
tolerance=${2:-0.0001}
[[ -x $ossa ]] || { echo "layouts.sh: $ossa not found (build first)" >&2; exit 1; }
command -v jq >/dev/null || { echo "layouts.sh: jq is required" >&2; exit 1; }
data=${OSSA_SHARED_DATA:-}
if [[ -z $data ]]; then
  data=$(meson introspect --buildoptions "$build" |
    python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "data_dir"))')
fi
[[ -n $data && -d $data ]] || {
  echo "layouts.sh: no data directory ('$data'): set OSSA_SHARED_DATA to the data directory of docs/benchmarks.md" >&2
  exit 2
}
cmu=${OSSA_CMU_BVH:-/usr/share/assimp/models/BVH/01_01.bvh}
compare=${OSSA_COMPARE_CLIPS:-$build/compare/clips}
rounds=${OSSA_BENCH_ROUNDS:-7}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

printf '| clip | layout | bytes | keys | max error mm | forward ns | forward, small ns | backward ns | random ns | context B (small) |\n'
printf '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n'

# One clip: NAME FILE [OPTION...] (the options bake and info both take).
run_clip() {
  local name=$1 file=$2 layout archive info bench row
  shift 2
  [[ -z ${OSSA_LAYOUT_CLIPS:-} || " $OSSA_LAYOUT_CLIPS " == *" $name "* ]] || return 0
  if [[ ! -f $file ]]; then
    echo "skipped: $name: $file not found" >&2
    return
  fi
  for layout in packed sorted; do
    archive=$out/$name-$layout.ossa
    if ! "$ossa" bake "$file" "$@" --tolerance "$tolerance" --layout "$layout" -q -o "$archive" >"$out/bake.log" 2>&1; then
      echo "refused: $name $layout: $(grep -m1 '^ossa' "$out/bake.log" || head -n1 "$out/bake.log")" >&2
      printf '| %s | %s | refused | | | | | | | |\n' "$name" "$layout"
      continue
    fi
    info=$("$ossa" info "$archive" --against "$file" "$@" --json)
    "$ossa" bench "$archive" --rounds "$rounds" --json "$out/bench.json" >/dev/null
    bench=$(jq -c '[.runs[0].clips[0].measures[] | {(.measure): .}] | add' "$out/bench.json")
    row=$(jq -n -r --argjson i "$info" --argjson b "$bench" --arg name "$name" --arg layout "$layout" '
      def ns(m): $b[m].ns_per_call | . * 10 | round / 10;
      [$name, $layout, ($i.animations[0].baked_bytes), ($i.animations[0].keys),
       ($i.animations[0].errors.vertices.max_mm | . * 10000 | round / 10000),
       ns("forward"), ns("forward, small context"), ns("backward"), ns("random"),
       "\($b["forward"].context_bytes) (\($b["forward, small context"].context_bytes))"]
      | "| " + (map(tostring) | join(" | ")) + " |"')
    printf '%s\n' "$row"
  done
}

run_clip pab_walk "$data/ozz/pab_walk_raw.ozz" --skeleton "$data/ozz/pab_skeleton.ozz"
run_clip pab_jog "$data/ozz/pab_jog_raw.ozz" --skeleton "$data/ozz/pab_skeleton.ozz"
run_clip pab_run "$data/ozz/pab_run_raw.ozz" --skeleton "$data/ozz/pab_skeleton.ozz"
run_clip pab_atlas "$data/ozz/pab_atlas_raw.ozz" --skeleton "$data/ozz/pab_skeleton.ozz"
run_clip cmu_01_01 "$cmu" --unit-scale 0.05644
if [[ -n ${OSSA_OZZ_MEDIA:-} ]]; then
  run_clip baked "$compare/baked_raw.ozz" --skeleton "$OSSA_OZZ_MEDIA/baked_skeleton.ozz"
else
  echo "skipped: baked: set OSSA_OZZ_MEDIA to ozz-animation's media/bin (its skeleton)" >&2
fi
run_clip synthetic_1024 "$compare/synthetic_1024_raw.ozz" --skeleton "$compare/synthetic_1024_skeleton.ozz"
