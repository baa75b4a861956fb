#!/bin/sh
# Bad-input sweep: truncates and bit-flips a sample of real inputs of every format and runs
# `ossa bake` on each mutant. Every run must end with exit 0, 1 or 2 within 30 s and print no
# sanitizer report: a crash, a hang, an out-of-bounds read or undefined behaviour fails the
# sweep. Meant for the sanitizer build (meson registers it there); usable by hand:
#
#   tests/sweep.sh build/tools/ossa [FILE...]
#
# Without FILE arguments the samples are the small files of Debian's assimp-testmodels
# (BVH, glTF, Collada, LightWave, FBX), a GLB of the fuzz corpus, the data directory's when
# OSSA_SHARED_DATA names one (Maya .anim, AnimJ, ozz, glTF with an external buffer), and, when
# OSSA_SAMPLE_INPUTS names the tests' sample_inputs program, the MRTK, AnimX and Metroid files
# it writes. Each file gets 16 truncations at evenly spaced lengths and 16 single-bit flips at
# offsets from a fixed seed, so a failure reproduces.
set -u
ossa=${1:?usage: sweep.sh OSSA [FILE...]}
shift
models=${OSSA_ASSIMP_MODELS:-/usr/share/assimp/models}
data=${OSSA_SHARED_DATA:-}
if [ $# -eq 0 ]; then
  set -- "$models/BVH/Boxing_Toes.bvh" "$models/glTF2/simple_skin/simple_skin.gltf" \
    "$models/Collada/box_nested_animation.dae" "$models/LWS/move_xz_spline.lws" \
    "$models/FBX/huesitos.fbx" "$data/maya/example_maya2026.anim" "$data/animj/wiki_example.animj" \
    "$data/ozz/pab_walk.ozz" "$data/gltf/interpolation_test.gltf" \
    "$(cd "$(dirname "$0")" && pwd)/fuzz/corpus/gltf/modes.glb"
  defaults=1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ossa-sweep-XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
if [ -n "${defaults:-}" ] && [ -n "${OSSA_SAMPLE_INPUTS:-}" ]; then
  mkdir -p "$work/samples"
  samples=$("$OSSA_SAMPLE_INPUTS" "$work/samples") || { echo "sweep: sample_inputs failed"; exit 1; }
  # shellcheck disable=SC2086
  set -- "$@" $samples
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# Leaks inside libassimp and zlib are theirs (see lsan.supp), not ossa's.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp:print_suppressions=0}
runs=0 failed=0 files=0

# run_one MUTANT WHAT: bake it, judge the exit status and the sanitizer output.
run_one() {
  runs=$((runs + 1))
  timeout 30 "$ossa" bake "$1" -o "$work/out.ossa" -q --threads 1 >/dev/null 2>"$work/err"
  rc=$?
  if [ $rc -gt 2 ] || grep -q -e 'Sanitizer' -e 'runtime error:' "$work/err"; then
    failed=$((failed + 1))
    echo "FAIL ($2): exit $rc"
    sed -n 1,12p "$work/err"
    cp "$1" "$work/../ossa-sweep-fail-$failed-$(basename "$1")" 2>/dev/null &&
      echo "  mutant kept as ${TMPDIR:-/tmp}/ossa-sweep-fail-$failed-$(basename "$1")"
  fi
  rm -f "$work/out.ossa"
}

for file in "$@"; do
  [ -s "$file" ] || { echo "skip (missing or empty): $file"; continue; }
  files=$((files + 1))
  name=$(basename "$file")
  size=$(wc -c <"$file")
  mutant="$work/$name"
  # Files a scene references (LightWave objects, glTF buffers) next to the mutant.
  for side in "$(dirname "$file")"/*; do
    [ "$side" = "$file" ] || ln -sf "$side" "$work/" 2>/dev/null
  done
  i=1
  while [ $i -le 16 ]; do
    cut=$((size * i / 17))
    head -c "$cut" "$file" >"$mutant"
    run_one "$mutant" "$name cut to $cut of $size bytes"
    i=$((i + 1))
  done
  seed=1
  i=1
  while [ $i -le 16 ]; do
    seed=$(((seed * 1103515245 + 12345) % 2147483648))
    at=$((seed % size))
    bit=$(((seed / 65536) % 8))
    cp "$file" "$mutant"
    byte=$(od -An -tu1 -j "$at" -N1 "$file" | tr -d ' ')
    printf "$(printf '\\%03o' $((byte ^ (1 << bit))))" |
      dd of="$mutant" bs=1 seek="$at" conv=notrunc 2>/dev/null
    run_one "$mutant" "$name bit $bit of byte $at flipped"
    i=$((i + 1))
  done
  rm -f "$mutant"
  find "$work" -maxdepth 1 -type l -delete
done
echo "sweep: $files files, $runs mutants, $failed failed"
[ $files -gt 0 ] || { echo "sweep: no input found"; exit 77; }
[ $failed -eq 0 ]
