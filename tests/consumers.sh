#!/usr/bin/env bash
# Installs a configured ossa build into a temporary folder and builds two programs against it
# as a project outside this tree would: tests/consumers/consumer.cpp through CMake
# (find_package(ossa CONFIG) and ossa::offline), and consumer.c (C11) and consumer.cpp (C++17)
# with `pkg-config --cflags --libs ossa-offline`. Each program bakes, loads and samples a
# small clip and exits 0 when the sampled pose is right. Then every installed header is
# compiled on its own as C11 and as C++17.
#
# Usage: tests/consumers.sh BUILD_DIR
# The install goes to a --destdir, so the CMake package is found away from the prefix it was
# configured for (it is relocatable) and pkg-config reads it through PKG_CONFIG_SYSROOT_DIR.
# Exit status: 0 all passed, 1 a step failed, 77 (skipped) when cmake, a C++ compiler or
# pkg-config is missing.
set -euo pipefail

if (($# != 1)); then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/consumers" && pwd)
cc=${CC:-cc}
cxx=${CXX:-c++}
for tool in cmake "$cxx" "$cc" pkg-config; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "skipped: $tool is not installed" >&2
    exit 77
  fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ossa-consumers-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root

step() { printf '== %s\n' "$*"; }

step "meson install --destdir $root"
meson install -C "$build" --no-rebuild --destdir "$root" --quiet >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log" >&2; exit 1; }
config=$(find "$root" -name ossaConfig.cmake -print -quit)
pc=$(find "$root" -name ossa-offline.pc -print -quit)
if [[ -z $config || -z $pc || ! -f $(dirname "$config")/ossaConfigVersion.cmake ]]; then
  echo "error: the install has no ossaConfig.cmake, ossaConfigVersion.cmake or ossa-offline.pc" >&2
  exit 1
fi
libdir=$(dirname "$(dirname "$pc")")
# The configured prefix (as ossa-offline.pc records it): the install is at $root$prefix.
prefix=$(sed -n 's/^prefix=//p' "$pc")
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

step "CMake: find_package(ossa CONFIG) with CMAKE_PREFIX_PATH=$root$prefix"
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S "$src" -B "$tmp/cmake" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_COMPILER=$cxx" \
  "-DCMAKE_PREFIX_PATH=$root$prefix" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON >"$tmp/cmake.log" 2>&1 ||
  { cat "$tmp/cmake.log" >&2; exit 1; }
cmake --build "$tmp/cmake" >"$tmp/cmake-build.log" 2>&1 || { cat "$tmp/cmake-build.log" >&2; exit 1; }
found=$(sed -n 's/^ossa_DIR:PATH=//p' "$tmp/cmake/CMakeCache.txt")
if [[ $found != "$(dirname "$config")" ]]; then
  echo "error: CMake found ossa in '$found', not in the install at '$(dirname "$config")'" >&2
  exit 1
fi
"$tmp/cmake/consumer"

PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR=$root
flags=$(pkg-config --cflags --libs ossa-offline)
step "pkg-config: $flags"
# shellcheck disable=SC2086 # flags are words on purpose
"$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -o "$tmp/consumer_c" "$src/consumer.c" $flags -lm
"$tmp/consumer_c"
# shellcheck disable=SC2086
"$cxx" -std=c++17 -Wall -Wextra -Wpedantic -Werror -o "$tmp/consumer_cpp" "$src/consumer.cpp" $flags
"$tmp/consumer_cpp"

# Every installed header on its own, as C11 and as C++17 (the consumers include only some).
include=$root$prefix/include
headers=$(cd "$include" && find ossa -name '*.h' | sort)
step "each of $(wc -w <<<"$headers") installed headers alone, as C11 and C++17"
for header in $headers; do
  printf '#include <%s>\n' "$header" >"$tmp/one.c"
  "$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only "-I$include" "$tmp/one.c" ||
    { echo "error: $header does not compile as C11 on its own" >&2; exit 1; }
  "$cxx" -std=c++17 -Wall -Wextra -Wpedantic -Werror -fsyntax-only "-I$include" -x c++ "$tmp/one.c" ||
    { echo "error: $header does not compile as C++17 on its own" >&2; exit 1; }
  # C linkage for what it declares: a header without it compiles as C++ but does not link.
  if grep -q '^OSSA_API ' "$include/$header" && ! grep -q 'extern "C"' "$include/$header"; then
    echo "error: $header declares functions without extern \"C\" for C++" >&2
    exit 1
  fi
done
step "ok"
