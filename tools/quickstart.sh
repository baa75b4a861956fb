#!/usr/bin/env bash
# First README command: installs every Debian package ossa needs (the same list CI uses),
# configures and builds ossa in build/, and runs the main job: `ossa` bakes the CMU motion
# capture clip 01_01.bvh from Debian's assimp-testmodels (CMU's unit: 1/0.45 inch = 0.05644 m;
# BVH files do not say) and prints its report.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OSSA_CI_INSTALL_ONLY=1 bash .ci/run
if [[ -d build ]]; then
  meson setup --reconfigure build
else
  meson setup build
fi
ninja -C build -j2
cd build
./tools/ossa bake /usr/share/assimp/models/BVH/01_01.bvh --unit-scale 0.05644
