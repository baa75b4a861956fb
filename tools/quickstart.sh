#!/usr/bin/env bash
# First README command: installs the Debian packages that building ossa and baking with it
# need (.ci/packages-base.txt; .ci/run installs those and the CI's other tools), configures and
# builds ossa in build/ with the optional parts whose tools are missing turned off, and runs
# the main job: `ossa` bakes the CMU motion capture clip 01_01.bvh from Debian's
# assimp-testmodels (CMU's unit: 1/0.45 inch = 0.05644 m; BVH files do not say) and prints its
# report. Runs as root on Debian 12, or with sudo.
# Environment: OSSA_QUICKSTART_SKIP_APT=1 does not look at or install packages.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    echo "error: need root (or sudo) to run: $*" >&2
    return 1
  fi
}

if [[ ${OSSA_QUICKSTART_SKIP_APT:-0} != 1 ]]; then
  mapfile -t packages < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' .ci/packages-base.txt)
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${db:Status-Status}\n' "$p" 2>/dev/null | grep -qx installed || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "installing: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
fi

# The browser viewer needs emscripten's emcc, which the quick start does not install.
options=()
command -v emcc >/dev/null 2>&1 || options+=(-Dviewer=disabled)
if [[ -d build ]]; then
  meson setup --reconfigure build "${options[@]}"
else
  meson setup build "${options[@]}"
fi
ninja -C build -j2
./build/tools/ossa bake /usr/share/assimp/models/BVH/01_01.bvh -o build/01_01.ossa --unit-scale 0.05644
echo
echo "the ossa command: $(pwd)/build/tools/ossa (ossa --help lists its commands)"
echo "the baked archive: $(pwd)/build/01_01.ossa (ossa info build/01_01.ossa describes it)"
