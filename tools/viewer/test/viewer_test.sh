#!/usr/bin/env bash
# The browser viewer's test (meson test suite 'viewer'): bakes the pab walk and jog clips of the
# data directory (without it: the CMU clip 01_01.bvh of Debian's assimp-testmodels, and the same
# clip with its root motion extracted, so that the blend moves the root), serves them with `ossa view --against` and drives the page in Debian's
# headless Chromium through playwright-core (viewer_test.mjs): it must load the archives, play,
# draw the skeleton where its joints project, match the native runtime's joint positions within
# 1e-5 (viewer_positions), blend, colour by error (red at the bake's tolerance, or at the clip's
# largest error for an archive without one) and report a bad file. The screenshots go to
# VIEWER_DIR/viewer-test.png (skeleton colours), viewer-test-errors.png (error colours) and
# viewer-test-page.png (the whole page, as in the README). Then viewer_mesh_test.mjs checks
# `ossa view --mesh` on a skinned tube it writes and, when the data directory has it, on
# gltf/cesium_man.gltf: the skinned positions (linear blend and dual quaternion) against its own
# skinning, the joint remap, the mesh on the canvas (viewer-test-mesh-*.png).
#
# Usage: tools/viewer/test/viewer_test.sh OSSA_EXE VIEWER_POSITIONS_EXE VIEWER_DIR
# Environment: OSSA_SHARED_DATA (the data directory, docs/benchmarks.md), OSSA_CHROMIUM
# (default /usr/bin/chromium).
# Exit status: 0 passed, 1 failed, 77 skipped (no node, no Chromium, or the driver's packages
# not installed: npm ci in tools/viewer/test). Without the pab clips and 01_01.bvh only the mesh
# checks run.
set -euo pipefail

if (($# != 3)); then
  echo "usage: $0 OSSA_EXE VIEWER_POSITIONS_EXE VIEWER_DIR" >&2
  exit 2
fi
ossa=$1 positions=$2 viewer=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
data=${OSSA_SHARED_DATA:-}
chromium=${OSSA_CHROMIUM:-/usr/bin/chromium}

skip() {
  echo "skipped: $*" >&2
  exit 77
}
cmu=/usr/share/assimp/models/BVH/01_01.bvh
pab=1
for f in pab_skeleton.ozz pab_walk_raw.ozz pab_jog_raw.ozz; do
  [[ -n $data && -f $data/ozz/$f ]] || pab=0
done
command -v node >/dev/null 2>&1 || skip "node is not installed"
[[ -x $chromium ]] || skip "$chromium is not installed (Debian's chromium package)"
[[ -f $here/node_modules/playwright-core/package.json ]] ||
  skip "playwright-core is not installed: run npm ci in tools/viewer/test"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ossa-viewer-test-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
cesium=()
if [[ -n $data && -f $data/gltf/cesium_man.gltf ]]; then
  cesium=(--cesium "$data/gltf/cesium_man.gltf")
fi
mkdir "$tmp/mesh"
node "$here/viewer_mesh_test.mjs" --ossa "$ossa" --positions "$positions" --viewer "$viewer" \
  --chromium "$chromium" --work "$tmp/mesh" "${cesium[@]}" || status=1
if ((!pab)); then
  if [[ ! -f $cmu ]]; then
    echo "skipped: the archive checks: neither DATA/ozz/pab_*.ozz (set OSSA_SHARED_DATA to the data directory) nor $cmu is there" >&2
    exit "$status"
  fi
  echo "the pab clips are not there (OSSA_SHARED_DATA): testing with $cmu" >&2
fi
# lossless.ossa: the walk baked without a tolerance (no META tolerance=, as an archive baked
# before the bake wrote one), for the error colours' fallback.
if ((pab)); then
  for clip in walk jog; do
    "$ossa" bake "$data/ozz/pab_${clip}_raw.ozz" --skeleton "$data/ozz/pab_skeleton.ozz" -o "$tmp/$clip.ossa" -q
  done
  "$ossa" bake "$data/ozz/pab_walk_raw.ozz" --skeleton "$data/ozz/pab_skeleton.ozz" --no-optimize \
    -o "$tmp/lossless.ossa" -q
  source=(--source "$data/ozz/pab_walk_raw.ozz" --skeleton "$data/ozz/pab_skeleton.ozz" --names walk,jog)
else
  "$ossa" bake "$cmu" -o "$tmp/walk.ossa" -q
  "$ossa" bake "$cmu" --root-motion -o "$tmp/jog.ossa" -q
  "$ossa" bake "$cmu" --no-optimize -o "$tmp/lossless.ossa" -q
  source=(--source "$cmu" --skeleton "" --names Motion,Motion)
fi
node "$here/viewer_test.mjs" --ossa "$ossa" --positions "$positions" --viewer "$viewer" \
  --chromium "$chromium" --work "$tmp" "${source[@]}" || status=1
exit "$status"
