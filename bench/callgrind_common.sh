# shellcheck shell=bash
# Sourced by bench/callgrind.sh, callgrind_ik.sh and callgrind_skinning.sh: each measure of an
# ossa benchmark executable run alone under callgrind (only its measured loop, one repetition,
# is instrumented), printed as a Markdown table next to ozz-animation's figure.
#
#   callgrind_table BENCH COUNT PER DECIMALS SHOW_CLIP [ARG...]
#     BENCH      the executable: `BENCH --list` prints one line per measure, tab-separated:
#                index, label, [clip,] ozz's Ir per PER (0: none), ozz's ns;
#                `BENCH --only INDEX ARG...` prints a line "COUNT N" (nothing when skipped)
#                and a line "simd LEVEL", the instruction set the jobs ran on (ossa_simd_level:
#                sse2 or avx2 in the dispatching x86-64 build, by the CPU or OSSA_SIMD),
#                printed under the table
#     COUNT      the word of that line: the calls or vertices the instrumented loop made
#     PER        the unit of the table's figures ("call", "vertex")
#     DECIMALS   decimals of ossa's figure (ozz's are whole)
#     SHOW_CLIP  1: a clip column (the list's third field), 0: none
callgrind_table() {
  local bench=$1 count=$2 per=$3 decimals=$4 show_clip=$5
  shift 5
  local out
  out=$(mktemp -d)
  # shellcheck disable=SC2064 # the folder is known now
  trap "rm -rf '$out'" EXIT
  if [[ $show_clip == 1 ]]; then
    printf '| measure | clip | ossa Ir/%s | ozz Ir/%s | ossa/ozz |\n|---|---|---:|---:|---:|\n' "$per" "$per"
  else
    printf '| measure | ossa Ir/%s | ozz Ir/%s | ossa/ozz |\n|---|---:|---:|---:|\n' "$per" "$per"
  fi
  "$bench" --list | while IFS=$'\t' read -r -a field; do
    local index=${field[0]} label=${field[1]} ozz_ir=${field[-2]} cell=''
    [[ $show_clip == 1 ]] && cell="${field[2]} | "
    local n
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out/cg.$index" \
      "$bench" --only "$index" "$@" 2>/dev/null >"$out/stdout.$index" || true
    n=$(awk -v key="$count" 'index($0, key) == 1 {print $2}' "$out/stdout.$index")
    awk '/^simd / {print $2}' "$out/stdout.$index" >>"$out/simd"
    if [[ -z $n ]]; then
      printf '| %s | %sskipped | %s | |\n' "$label" "$cell" "$ozz_ir"
      continue
    fi
    local total
    total=$(awk '/^totals:/ {print $2; exit}' "$out/cg.$index")
    awk -v l="$label" -v c="$cell" -v t="$total" -v n="$n" -v o="$ozz_ir" -v d="$decimals" \
      'BEGIN { ir = t / n; f = "%." d "f";
             if (o > 0) printf "| %s | %s" f " | %.0f | %.2f |\n", l, c, ir, o, ir / o;
             else printf "| %s | %s" f " | | |\n", l, c, ir }'
  done
  printf '\nJobs ran on: %s (OSSA_SIMD=%s)\n' "$(sort -u "$out/simd" 2>/dev/null | paste -sd, -)" "${OSSA_SIMD:-unset}"
}
