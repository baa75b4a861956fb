#!/usr/bin/env bash
# The browser viewer's test (meson test suite 'viewer'): bakes the pab walk and jog clips of the
# data directory, serves them with `ossa view --against` and drives the page in Debian's
# headless Chromium through playwright-core (viewer_test.mjs): it must load the archives, play,
# draw the skeleton where its joints project, match the native runtime's joint positions within
# 1e-5 (viewer_positions), blend, colour by error and report a bad file. The screenshots go to
# VIEWER_DIR/viewer-test.png (skeleton colours), viewer-test-errors.png (error colours) and
# viewer-test-page.png (the whole page, as in the README).
#
# Usage: tools/viewer/test/viewer_test.sh OSSA_EXE VIEWER_POSITIONS_EXE VIEWER_DIR
# Environment: OSSA_SHARED_DATA (the data directory, docs/benchmarks.md), OSSA_CHROMIUM
# (default /usr/bin/chromium).
# Exit status: 0 passed, 1 failed, 77 skipped (no pab clips, no node, no Chromium, or the
# driver's packages not installed: npm ci in tools/viewer/test).
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
for f in pab_skeleton.ozz pab_walk_raw.ozz pab_jog_raw.ozz; do
  [[ -n $data && -f $data/ozz/$f ]] || skip "DATA/ozz/$f is not there (set OSSA_SHARED_DATA to the data directory)"
done
command -v node >/dev/null 2>&1 || skip "node is not installed"
[[ -x $chromium ]] || skip "$chromium is not installed (Debian's chromium package)"
[[ -f $here/node_modules/playwright-core/package.json ]] ||
  skip "playwright-core is not installed: run npm ci in tools/viewer/test"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ossa-viewer-test-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for clip in walk jog; do
  "$ossa" bake "$data/ozz/pab_${clip}_raw.ozz" --skeleton "$data/ozz/pab_skeleton.ozz" -o "$tmp/$clip.ossa" -q
done
status=0
node "$here/viewer_test.mjs" --ossa "$ossa" --positions "$positions" --viewer "$viewer" \
  --chromium "$chromium" --work "$tmp" --source "$data/ozz/pab_walk_raw.ozz" --skeleton "$data/ozz/pab_skeleton.ozz" || status=$?
exit "$status"
