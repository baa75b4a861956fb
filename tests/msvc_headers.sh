#!/bin/sh
# Every public header alone, as C11 and as C++14, through clang in its MSVC-compatible mode
# (Windows x64 target, _MSC_VER and _WIN32 defined, LLP64) with the GCC and Clang branches of
# ossa/config.h switched off (__GNUC__ and __clang__ undefined), as MSVC sees the headers.
# -pedantic-errors rejects GNU syntax (statement expressions, typeof, zero-length arrays, ...),
# and __attribute__ is defined to an unknown name, so one left outside a compiler guard fails.
# -ffreestanding: the headers include only <stddef.h>, <stdint.h> and <stdbool.h>, which clang
# brings itself, so no Windows SDK is needed.
#
# What this does not prove: that MSVC's own front end accepts them (clang is laxer in places;
# MSVC needs /std:c11 for _Alignas), that the libraries build or link with MSVC, or that a
# MinGW-built DLL and an MSVC program agree on every struct layout (docs/platforms.md).
#
# Usage: msvc_headers.sh CLANG SOURCE_ROOT BUILD_ROOT
set -u
clang=$1 src=$2 build=$3
fail=0 count=0
for header in $(cd "$src/runtime/include" && ls ossa/*.h) $(cd "$src/offline/include" && ls ossa/offline/*.h); do
  for lang in c c++; do
    std=-std=c11
    [ "$lang" = c++ ] && std=-std=c++14
    count=$((count + 1))
    if ! printf '#include "%s"\nint ossa_header_check;\n' "$header" |
      "$clang" -x "$lang" "$std" --target=x86_64-pc-windows-msvc -fms-compatibility -fms-extensions \
        -fsyntax-only -ffreestanding -U__clang__ -U__GNUC__ '-D__attribute__(x)=ossa_gnu_attribute_outside_a_guard' \
        -pedantic-errors -Werror -Wall -Wextra \
        -I"$build/runtime/include" -I"$src/runtime/include" -I"$src/offline/include" -; then
      echo "FAIL: $header as $lang" >&2
      fail=$((fail + 1))
    fi
  done
done
echo "$count compilations (each public header as C11 and C++14), $fail failed"
[ "$fail" -eq 0 ]
