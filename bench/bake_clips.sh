# shellcheck shell=bash
# Sourced by bench/bake.sh and bench/bake_ab.sh: the clips both bake.
#   bake_clips SHARED CLIPS [synthetic]
# fills names[] and inputs[] (each an input file and its options for `ossa bake`, as words):
# the four pab clips (with pab_skeleton.ozz) from the data directory SHARED, CMU 01_01 from
# Debian's assimp-testmodels at CMU's unit, and, with OSSA_OZZ_SRC (an ozz-animation source
# tree), ozz's ruby and baked as bench/compare.sh resampled them under CLIPS (skipped with a
# message when missing), then with `synthetic` its synthetic 1,024-joint clip too.
bake_clips() {
  local shared=$1 clips=$2 synthetic=${3:-} clip
  names=() inputs=()
  for clip in walk jog run atlas; do
    names+=("pab_$clip")
    inputs+=("$shared/ozz/pab_${clip}_raw.ozz --skeleton $shared/ozz/pab_skeleton.ozz")
  done
  names+=(cmu_01_01)
  inputs+=("/usr/share/assimp/models/BVH/01_01.bvh --unit-scale 0.05644")
  [[ -n ${OSSA_OZZ_SRC:-} ]] || return 0
  for clip in ruby baked; do
    if [[ -f $clips/${clip}_raw.ozz ]]; then
      names+=("$clip")
      inputs+=("$clips/${clip}_raw.ozz --skeleton $OSSA_OZZ_SRC/media/bin/${clip}_skeleton.ozz")
    else
      echo "${0##*/}: skipped $clip: $clips/${clip}_raw.ozz not found (bench/compare.sh makes it)" >&2
    fi
  done
  if [[ -n $synthetic && -f $clips/synthetic_1024_raw.ozz ]]; then
    names+=(synthetic_1024)
    inputs+=("$clips/synthetic_1024_raw.ozz --skeleton $clips/synthetic_1024_skeleton.ozz")
  fi
}
