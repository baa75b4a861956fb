#!/usr/bin/env bash
# Side by side with ozz-animation 0.16 and ACL 2.1: the same clips, loops, ratio streams and
# call counts on each side (docs/benchmarks.md, "Side by side with ozz-animation and ACL").
#
#   bash bench/compare.sh OZZ_SRC ACL_SRC [BUILD]
#     OZZ_SRC  an ozz-animation 0.16.0 source tree (its media/bin holds ruby and baked)
#     ACL_SRC  an ACL v2.1.0 source tree with its external/rtm submodule checked out
#     BUILD    an ossa meson build directory configured with -Dbench=true (default: build)
#
# Everything it builds and writes goes under BUILD/compare/: ozz's libraries (its own CMake,
# Release), the two C++ harnesses bench/compare/ozz_side.cc and acl_side.cc, the clips and
# results.tsv. Data: the data directory of docs/benchmarks.md in OSSA_SHARED_DATA (default: the
# build's data_dir option); CMU 01_01 from OSSA_CMU_BVH (default: Debian's assimp-testmodels).
#
# Per measure and clip: instructions per call of the measured loop alone under callgrind
# (each side brackets it with callgrind's start/stop requests), and thread CPU time per call
# in 7 rounds alternating ossa and the reference (about 50 ms each, pinned to one core with
# taskset when there is one): the figure is the median of the per-round ratios.
set -euo pipefail

usage() {
  sed -n '4,8p' "$0" | sed 's/^# \{0,1\}//' >&2
}
if (($# < 2 || $# > 3)); then usage; exit 2; fi
ozz_src=$(realpath "$1")
acl_src=$(realpath "$2")
build=$(realpath "${3:-build}")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$build/compare
clips=$out/clips
mkdir -p "$clips"

for f in "$ozz_src/include/ozz/animation/runtime/sampling_job.h" "$acl_src/includes/acl/decompression/decompress.h" \
  "$acl_src/external/rtm/includes/rtm/qvvf.h"; do
  [[ -f $f ]] || { echo "compare.sh: $f is missing (see the usage: ozz 0.16 and ACL 2.1 with rtm)" >&2; exit 2; }
done
data=${OSSA_SHARED_DATA:-}
if [[ -z $data ]]; then
  data=$(meson introspect --buildoptions "$build" |
    python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "data_dir"))')
fi
[[ -n $data && -f $data/ozz/pab_skeleton.ozz ]] || {
  echo "compare.sh: no ozz/pab_skeleton.ozz in '$data': set OSSA_SHARED_DATA to the data directory of docs/benchmarks.md" >&2
  exit 2
}
cmu=${OSSA_CMU_BVH:-/usr/share/assimp/models/BVH/01_01.bvh}

# 1. Build: ossa's side and CLI (meson), ozz with its own CMake (Release: -O3 -DNDEBUG, SSE2),
#    both harnesses with the same flags.
ninja -C "$build" bench/ossa-compare tools/ossa >/dev/null
ossa_side=$build/bench/ossa-compare
ossa_cli=$build/tools/ossa
if [[ ! -f $out/ozz-build/CMakeCache.txt ]]; then
  cmake -S "$ozz_src" -B "$out/ozz-build" -DCMAKE_BUILD_TYPE=Release -Dozz_build_samples=OFF \
    -Dozz_build_howtos=OFF -Dozz_build_tests=OFF -Dozz_build_fbx=OFF -Dozz_build_gltf=OFF \
    -Dozz_build_tools=OFF -Dozz_build_data=OFF -Dozz_build_postfix=OFF >"$out/ozz-cmake.log" 2>&1
fi
cmake --build "$out/ozz-build" --target ozz_animation_offline -j2 >"$out/ozz-build.log" 2>&1 ||
  { tail -n 20 "$out/ozz-build.log" >&2; exit 1; }
cxx_flags=(-std=c++17 -O3 -msse2 -DNDEBUG -I"$ozz_src/include" -I"$acl_src/includes" -I"$acl_src/external/rtm/includes")
echo '#include <valgrind/callgrind.h>' | ${CXX:-g++} -E -x c++ - >/dev/null 2>&1 && cxx_flags+=(-DOSSA_HAVE_CALLGRIND=1)
ozz_libs=(-L"$out/ozz-build/src/animation/offline" -L"$out/ozz-build/src/animation/runtime" -L"$out/ozz-build/src/base"
  -lozz_animation_offline -lozz_animation -lozz_base)
for side in ozz acl; do
  src=$here/compare/${side}_side.cc exe=$out/$side-compare
  if [[ ! -x $exe || $src -nt $exe || $out/ozz-build/src/base/libozz_base.a -nt $exe ]]; then
    ${CXX:-g++} "${cxx_flags[@]}" "$src" -o "$exe" "${ozz_libs[@]}" 2>"$out/$side-compile.log" ||
      { cat "$out/$side-compile.log" >&2; exit 1; }
  fi
done
ozz_side=$out/ozz-compare acl_side=$out/acl-compare

# 2. Clips: NAME RAW SKELETON RATE UNIT. Every side starts from the same raw clip: ossa bakes
#    it (`ossa bake`, default tolerance), ozz runs its default optimizer and builder (its
#    metre defaults divided by UNIT), ACL
#    compresses it with its defaults, sampled at RATE (Hz); UNIT is metres per source unit.
[[ -f $clips/ruby_raw.ozz ]] ||
  "$ozz_side" resample "$ozz_src/media/bin/ruby_animation.ozz" "$ozz_src/media/bin/ruby_skeleton.ozz" 30 "$clips/ruby_raw.ozz"
[[ -f $clips/baked_raw.ozz ]] ||
  "$ozz_side" resample "$ozz_src/media/bin/baked_animation.ozz" "$ozz_src/media/bin/baked_skeleton.ozz" 24 "$clips/baked_raw.ozz"
for source in "$cmu" synthetic_1024; do
  name=$(basename "$source" .bvh)
  if [[ ! -f $clips/${name}_raw.ozz ]]; then
    "$ossa_side" dump "$source" -o "$clips/$name.keys"
    "$ozz_side" from-keys "$clips/$name.keys" "$clips/${name}_raw.ozz" "$clips/${name}_skeleton.ozz"
  fi
done
clip_table=(
  "pab_walk $data/ozz/pab_walk_raw.ozz $data/ozz/pab_skeleton.ozz 30 1"
  "pab_jog $data/ozz/pab_jog_raw.ozz $data/ozz/pab_skeleton.ozz 30 1"
  "pab_run $data/ozz/pab_run_raw.ozz $data/ozz/pab_skeleton.ozz 30 1"
  "pab_atlas $data/ozz/pab_atlas_raw.ozz $data/ozz/pab_skeleton.ozz 30 1"
  "ruby $clips/ruby_raw.ozz $ozz_src/media/bin/ruby_skeleton.ozz 30 1"
  "baked $clips/baked_raw.ozz $ozz_src/media/bin/baked_skeleton.ozz 24 1"
  "01_01 $clips/01_01_raw.ozz $clips/01_01_skeleton.ozz 120 0.05644"
  "synthetic_1024 $clips/synthetic_1024_raw.ozz $clips/synthetic_1024_skeleton.ozz 30 1"
)
declare -A skeleton_of
printf '| clip | joints | ossa bytes | ozz bytes | ACL bytes | ACL compress ms |\n|---|---:|---:|---:|---:|---:|\n' \
  >"$out/clips.md"
for row in "${clip_table[@]}"; do
  read -r name raw skel rate unit <<<"$row"
  skeleton_of[$name]=$skel
  [[ -f $clips/$name.ossa ]] || "$ossa_cli" bake "$raw" --skeleton "$skel" --unit-scale "$unit" -q -o "$clips/$name.ossa" >/dev/null
  [[ -f $clips/$name.ozz ]] || "$ozz_side" build "$raw" "$skel" "$unit" "$clips/$name.ozz"
  [[ -f $clips/$name.acl ]] || "$acl_side" compress "$raw" "$skel" "$rate" "$unit" "$clips/$name.acl" >"$clips/$name.acl.txt"
done

# 3. Measures: MEASURE CLIP REFERENCES CALLS (the callgrind loop; the timed rounds size theirs
#    to about 50 ms). blend and frame play pab walk, jog and run.
rows=(
  "forward pab_walk ozz,acl 20000" "forward-small pab_walk ozz 20000" "random pab_walk ozz,acl 5000"
  "forward pab_jog ozz,acl 20000" "forward-small pab_jog ozz 20000" "random pab_jog ozz,acl 5000"
  "forward pab_run ozz,acl 20000" "forward-small pab_run ozz 20000" "random pab_run ozz,acl 5000"
  "forward pab_atlas ozz,acl 20000" "forward-small pab_atlas ozz 20000" "random pab_atlas ozz,acl 2000"
  "l2m pab_walk ozz 20000" "blend pab_walk ozz 20000" "frame pab_walk ozz 5000" "frame-small pab_walk ozz 5000"
  "forward ruby ozz,acl 5000" "forward-small ruby ozz 5000" "random ruby ozz,acl 2000"
  "forward baked ozz,acl 2400" "forward-small baked ozz 2400" "random baked ozz,acl 500" "l2m baked ozz 2000"
  "forward 01_01 ozz,acl 6000" "forward-small 01_01 ozz 6000" "random 01_01 ozz,acl 1000"
  "forward synthetic_1024 ozz,acl 2000" "forward-small synthetic_1024 ozz 2000" "random synthetic_1024 ozz,acl 500"
  "l2m synthetic_1024 ozz 2000"
)
pin=()
command -v taskset >/dev/null && pin=(taskset -c "$(($(nproc) - 1))")

# The files of MEASURE on CLIP for SIDE (ossa, ozz, acl), as that side's run arguments.
files_of() {
  local side=$1 measure=$2 clip=$3 ext
  case $side in ossa) ext=ossa ;; ozz) ext=ozz ;; acl) ext=acl ;; esac
  [[ $side == ozz ]] && printf '%s\n' "${skeleton_of[$clip]}"
  if [[ $measure == blend || $measure == frame* ]]; then
    printf '%s\n' "$clips/pab_walk.$ext" "$clips/pab_jog.$ext" "$clips/pab_run.$ext"
  else
    printf '%s\n' "$clips/$clip.$ext"
  fi
}
# run SIDE MEASURE CALLS CLIP [valgrind...]: the side's key-value output.
run_side() {
  local side=$1 measure=$2 calls=$3 clip=$4
  shift 4
  local exe
  case $side in ossa) exe=$ossa_side ;; ozz) exe=$ozz_side ;; acl) exe=$acl_side ;; esac
  # MEASURE-small is ossa's loop with its smallest contexts; the references run MEASURE.
  [[ $side != ossa ]] && measure=${measure%-small}
  mapfile -t files < <(files_of "$side" "$measure" "$clip")
  "$@" "$exe" run "$measure" "$calls" "${files[@]}"
}
field() { awk -v k="$1" '$1 == k {print $2}'; }
# Instructions per call of the measured loop.
ir_of() {
  local cg=$out/cg.out
  local n
  n=$(run_side "$@" valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$cg" 2>/dev/null | field calls)
  awk -v n="$n" '/^totals:/ {printf "%.0f\n", $2 / n; exit}' "$cg"
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

tsv=$out/results.tsv
printf 'measure\tclip\treference\tjoints\tossa_ir\tref_ir\tir_ratio\tossa_ns\tref_ns\tns_ratio\tossa_context_bytes\tossa_context_playback_bytes\tref_context_bytes\tossa_state_bytes\tref_state_bytes\n' >"$tsv"
{
  echo "| measure | clip | ref | ossa Ir | ref Ir | Ir ratio | ossa ns | ref ns | ns ratio | ossa ctx B (cache) | ref ctx B | ossa state B | ref state B |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} | tee "$out/results.md"
for row in "${rows[@]}"; do
  read -r measure clip refs calls <<<"$row"
  ossa_out=$(run_side ossa "$measure" "$calls" "$clip")
  ossa_ir=$(ir_of ossa "$measure" "$calls" "$clip")
  # Calls per timed round: about 50 ms of ossa's thread CPU time.
  round_calls=$(awk -v ns="$(field ns <<<"$ossa_out")" 'BEGIN {c = int(5e7 / ns); print c < 50 ? 50 : c}')
  for ref in ${refs//,/ }; do
    ref_out=$(run_side "$ref" "$measure" "$calls" "$clip")
    ref_ir=$(ir_of "$ref" "$measure" "$calls" "$clip")
    ossa_ns=() ref_ns=() ratios=()
    for _ in 1 2 3 4 5 6 7; do
      a=$(run_side ossa "$measure" "$round_calls" "$clip" "${pin[@]}" | field ns)
      b=$(run_side "$ref" "$measure" "$round_calls" "$clip" "${pin[@]}" | field ns)
      ossa_ns+=("$a") ref_ns+=("$b") ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN {print a / b}')")
    done
    on=$(printf '%s\n' "${ossa_ns[@]}" | median) rn=$(printf '%s\n' "${ref_ns[@]}" | median)
    nr=$(printf '%s\n' "${ratios[@]}" | median)
    joints=$(field joints <<<"$ossa_out")
    octx=$(field context_bytes <<<"$ossa_out") ocache=$(field context_playback_bytes <<<"$ossa_out")
    rctx=$(field context_bytes <<<"$ref_out") ostate=$(field state_bytes <<<"$ossa_out")
    rstate=$(field state_bytes <<<"$ref_out")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%.0f\t%.0f\t%.2f\t%s\t%s\t%s\t%s\t%s\n' "$measure" "$clip" "$ref" "$joints" \
      "$ossa_ir" "$ref_ir" "$(awk -v a="$ossa_ir" -v b="$ref_ir" 'BEGIN {print a / b}')" "$on" "$rn" "$nr" \
      "$octx" "$ocache" "$rctx" "$ostate" "$rstate" >>"$tsv"
    tail -n 1 "$tsv" | awk -F'\t' '{printf "| %s | %s | %s | %d | %d | %.2f | %d | %d | %.2f | %d (%d) | %d | %d | %d |\n",
      $1, $2, $3, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15}' | tee -a "$out/results.md"
  done
done

# Sizes of the clips each side measured.
for row in "${clip_table[@]}"; do
  read -r name _ _ _ _ <<<"$row"
  ob=$(run_side ossa forward 1 "$name" | field bytes) zb=$(run_side ozz forward 1 "$name" | field bytes)
  ab=$(field bytes <"$clips/$name.acl.txt") am=$(field compress_ms <"$clips/$name.acl.txt")
  j=$(run_side ossa forward 1 "$name" | field joints)
  printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$j" "$ob" "$zb" "$ab" "$am" >>"$out/clips.md"
done
echo
cat "$out/clips.md"
echo
echo "ossa $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'), $(${CXX:-g++} --version | head -n 1);" \
  "results in $tsv"
