#!/usr/bin/env bash
# Installs a configured ossa build into a temporary prefix, MOVES that prefix elsewhere, and
# uses the moved tree as a project outside this tree would, with no LD_LIBRARY_PATH:
#   - bin/ossa runs (its RUNPATH is $ORIGIN-relative) and loads the moved libraries;
#   - tests/consumers/consumer.cpp builds through CMake (find_package(ossa CONFIG) and
#     ossa::offline), consumer.c (C11) and consumer.cpp (C++17) with
#     `pkg-config --cflags --libs ossa-offline` (the .pc files are relocatable), and consumer.c
#     once more against the static libraries (`pkg-config --static`); each bakes, loads and
#     samples a small clip and exits 0 when the sampled pose is right;
#   - the README's complete example (between its readme-example markers) builds with
#     `pkg-config --cflags --libs ossa` alone and prints the pose of consumer.c's archive;
#   - every installed header compiles on its own as C11 and as C++17.
#
# Usage: tests/consumers.sh BUILD_DIR
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
pc=$(find "$root" -name ossa-offline.pc -print -quit)
if [[ -z $pc ]]; then
  echo "error: the install has no ossa-offline.pc" >&2
  exit 1
fi
# The configured prefix (what --prefix said; the install is at $root$prefix) and libdir below it.
prefix=$(meson introspect "$build" --buildoptions |
  python3 -c 'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
libdir_rel=${pc#"$root$prefix/"}
libdir_rel=${libdir_rel%/pkgconfig/ossa-offline.pc}

# The prefix moves: nothing may still point at where it was installed.
moved=$tmp/moved/prefix
mkdir -p "$tmp/moved"
mv "$root$prefix" "$moved"
rm -rf "$root"
libdir=$moved/$libdir_rel
unset LD_LIBRARY_PATH PKG_CONFIG_SYSROOT_DIR
for f in ossaConfig.cmake ossaConfigVersion.cmake; do
  [[ -f $libdir/cmake/ossa/$f ]] || { echo "error: the install has no $libdir_rel/cmake/ossa/$f" >&2; exit 1; }
done
for lib in libossa.so libossa.a libossa-offline.so libossa-offline.a; do
  [[ -e $libdir/$lib ]] || { echo "error: the install has no $libdir_rel/$lib" >&2; exit 1; }
done

# libossa* resolve to the moved libdir (not a system copy), through the RUNPATH alone.
real_libdir=$(cd "$libdir" && pwd -P)
# check_loads PROGRAM [shared]: every libossa the dynamic loader maps for PROGRAM is in the
# moved libdir; with "shared", PROGRAM must load libossa.so at all.
check_loads() {
  local trace paths path
  trace=$(LD_TRACE_LOADED_OBJECTS=1 "$1") || { echo "error: $1 does not load" >&2; exit 1; }
  paths=$(sed -n 's/^[[:space:]]*libossa[^ ]* => \([^ ]*\).*/\1/p' <<<"$trace")
  if [[ ${2:-} == shared && $paths != *libossa.so* ]] || grep -q 'libossa.* not found' <<<"$trace"; then
    printf 'error: %s does not load libossa.so from the moved prefix:\n%s\n' "$1" "$trace" >&2
    exit 1
  fi
  for path in $paths; do
    if [[ $(realpath "$path") != "$real_libdir"/* ]]; then
      printf 'error: %s loads %s, outside the moved prefix:\n%s\n' "$1" "$path" "$trace" >&2
      exit 1
    fi
  done
}
if [[ -x $moved/bin/ossa ]]; then
  step "moved bin/ossa --help"
  check_loads "$moved/bin/ossa" shared
  "$moved/bin/ossa" --help >"$tmp/help.txt" || { echo "error: moved bin/ossa --help failed" >&2; exit 1; }
  grep -q 'bake' "$tmp/help.txt" || { echo "error: moved bin/ossa --help does not list bake" >&2; exit 1; }
fi

step "CMake: find_package(ossa CONFIG) with CMAKE_PREFIX_PATH=$moved"
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S "$src" -B "$tmp/cmake" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_COMPILER=$cxx" \
  "-DCMAKE_PREFIX_PATH=$moved" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON >"$tmp/cmake.log" 2>&1 ||
  { cat "$tmp/cmake.log" >&2; exit 1; }
cmake --build "$tmp/cmake" >"$tmp/cmake-build.log" 2>&1 || { cat "$tmp/cmake-build.log" >&2; exit 1; }
found=$(sed -n 's/^ossa_DIR:PATH=//p' "$tmp/cmake/CMakeCache.txt")
if [[ $found != "$libdir/cmake/ossa" ]]; then
  echo "error: CMake found ossa in '$found', not in the moved install at '$libdir/cmake/ossa'" >&2
  exit 1
fi
check_loads "$tmp/cmake/consumer" shared
"$tmp/cmake/consumer"

export PKG_CONFIG_PATH=$libdir/pkgconfig
pc_libdir=$(pkg-config --variable=libdir ossa-offline)
if [[ $(cd "$pc_libdir" && pwd -P) != "$(cd "$libdir" && pwd -P)" ]]; then
  echo "error: ossa-offline.pc's libdir is '$pc_libdir', not the moved '$libdir'" >&2
  exit 1
fi
flags=$(pkg-config --cflags --libs ossa-offline)
step "pkg-config: $flags"
# A program linked against a library outside the system's paths carries its own RUNPATH.
rpath=-Wl,-rpath,$pc_libdir
# shellcheck disable=SC2086 # flags are words on purpose
"$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -o "$tmp/consumer_c" "$src/consumer.c" $flags -lm "$rpath"
check_loads "$tmp/consumer_c" shared
"$tmp/consumer_c" "$tmp/clip.ossa"
# shellcheck disable=SC2086
"$cxx" -std=c++17 -Wall -Wextra -Wpedantic -Werror -o "$tmp/consumer_cpp" "$src/consumer.cpp" $flags "$rpath"
check_loads "$tmp/consumer_cpp" shared
"$tmp/consumer_cpp"

# The static libraries: -lossa-offline -lossa taken from the .a files, their private
# dependencies from pkg-config --static.
static_flags=()
for flag in $(pkg-config --static --libs ossa-offline); do
  case $flag in
    -lossa | -lossa-offline) static_flags+=(-Wl,-Bstatic "$flag" -Wl,-Bdynamic) ;;
    *) static_flags+=("$flag") ;;
  esac
done
step "pkg-config --static: ${static_flags[*]}"
# shellcheck disable=SC2046 # flags are words on purpose
"$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -o "$tmp/consumer_static" "$src/consumer.c" \
  $(pkg-config --cflags ossa-offline) "${static_flags[@]}" -lm
if LD_TRACE_LOADED_OBJECTS=1 "$tmp/consumer_static" | grep -q libossa; then
  echo "error: the statically linked consumer still loads a shared libossa" >&2
  exit 1
fi
"$tmp/consumer_static"

# The README's example, built with the runtime's flags alone, on consumer.c's archive: a
# two-joint clip whose root moves to x = 2 and turns 90 degrees about z in one second, so at
# 0.5 s the root is at (1, 0, 0) and the tip at (1 - sin 45, cos 45, 0).
readme=$src/../../README.md
sed -n '/<!-- readme-example: begin -->/,/<!-- readme-example: end -->/p' "$readme" |
  sed -e '1,/^```c$/d' -e '/^```$/,$d' >"$tmp/play.c"
[[ -s $tmp/play.c ]] || { echo "error: no readme-example block in README.md" >&2; exit 1; }
flags=$(pkg-config --cflags --libs ossa)
step "README example: pkg-config --cflags --libs ossa: $flags"
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror -o "$tmp/play" "$tmp/play.c" $flags "$rpath"
check_loads "$tmp/play" shared
"$tmp/play" "$tmp/clip.ossa" 0.5 >"$tmp/play.txt"
cat "$tmp/play.txt"
printf 'root 1.0000 0.0000 0.0000\ntip 0.2929 0.7071 0.0000\n' >"$tmp/play.expected"
if ! diff -u "$tmp/play.expected" "$tmp/play.txt"; then
  echo "error: the README example printed another pose" >&2
  exit 1
fi
set +e
"$tmp/play" "$tmp/missing.ossa" 0.5 2>"$tmp/play.err"
rc=$?
set -e
[[ $rc == 1 ]] && grep -q 'missing.ossa: cannot read the file' "$tmp/play.err" ||
  { echo "error: the README example on a missing file: exit $rc, $(cat "$tmp/play.err")" >&2; exit 1; }

# Every installed header on its own, as C11 and as C++17 (the consumers include only some).
include=$moved/include
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
