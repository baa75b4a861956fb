#!/usr/bin/env bash
# First README command: installs the Debian packages that building ossa and baking with it
# need (.ci/packages-base.txt; .ci/run installs those and the CI's other tools), configures and
# builds ossa in build/ with the optional parts whose tools are missing turned off, and runs
# the main job: `ossa` bakes the CMU motion capture clip 01_01.bvh of Debian's
# assimp-testmodels (CMU's unit: 1/0.45 inch = 0.05644 m; BVH files do not say) and prints its
# report. Without that package installed, the clip alone (2 MB) is taken from its package file
# (apt-get download, 21 MB, deleted after) into build/01_01.bvh, rather than installing its
# 73 MiB of models. Runs as root on Debian 12, or with sudo.
# Environment: OSSA_QUICKSTART_SKIP_APT=1 does not look at, install or download packages.
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

clip=/usr/share/assimp/models/BVH/01_01.bvh
if [[ ! -f $clip ]]; then
  clip=build/01_01.bvh
  if [[ ! -f $clip ]]; then
    if [[ ${OSSA_QUICKSTART_SKIP_APT:-0} == 1 ]]; then
      echo "error: no 01_01.bvh: install assimp-testmodels, or run without OSSA_QUICKSTART_SKIP_APT=1" >&2
      exit 1
    fi
    echo "taking 01_01.bvh from Debian's assimp-testmodels package file (not installed)"
    deb_dir=$(mktemp -d)
    trap 'rm -rf "$deb_dir"' EXIT
    if ! (cd "$deb_dir" && apt-get download -q assimp-testmodels); then
      # No package lists yet (a fresh container): fetch them, then try again.
      as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
      (cd "$deb_dir" && apt-get download -q assimp-testmodels)
    fi
    dpkg-deb --fsys-tarfile "$deb_dir"/assimp-testmodels_*.deb |
      tar -xO ./usr/share/assimp/models/BVH/01_01.bvh >"$clip.part"
    mv "$clip.part" "$clip"
  fi
fi
./build/tools/ossa bake "$clip" -o build/01_01.ossa --unit-scale 0.05644
echo
echo "the ossa command: $(pwd)/build/tools/ossa (ossa --help lists its commands)"
echo "the baked archive: $(pwd)/build/01_01.ossa (ossa info build/01_01.ossa describes it)"
