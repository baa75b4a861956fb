#!/bin/sh
# Every file of Debian's assimp-testmodels (all formats, textures and notes included) through
# `ossa bake`: each must bake or fail with exit 1 or 2 within 30 s, with no sanitizer report.
# Prints the counts and every file that broke the rule. Registered as a test of the sanitizer
# build; by hand: tests/every_model.sh build/tools/ossa [MODELS_DIR]
set -u
ossa=${1:?usage: every_model.sh OSSA [MODELS_DIR]}
models=${2:-${OSSA_ASSIMP_MODELS:-/usr/share/assimp/models}}
[ -d "$models" ] || { echo "skip: no $models (Debian package assimp-testmodels)"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ossa-models-XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp:print_suppressions=0}
find "$models" -type f | sort >"$work/list"
baked=0 refused=0 broken=0
while IFS= read -r file; do
  timeout 30 "$ossa" bake "$file" -o "$work/out.ossa" -q --threads 1 >/dev/null 2>"$work/err" </dev/null
  rc=$?
  if [ $rc -gt 2 ] || grep -q -e 'Sanitizer' -e 'runtime error:' "$work/err"; then
    broken=$((broken + 1))
    echo "BROKEN (exit $rc): $file"
    sed -n 1,8p "$work/err"
  elif [ $rc -eq 0 ]; then
    baked=$((baked + 1))
  else
    refused=$((refused + 1))
  fi
  rm -f "$work/out.ossa"
done <"$work/list"
echo "every model: $(wc -l <"$work/list") files, $baked baked, $refused refused with an error, $broken broken"
[ $broken -eq 0 ]
