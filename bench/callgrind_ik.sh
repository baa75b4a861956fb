#!/usr/bin/env bash
# Instructions per call of each ossa-bench-ik measure under callgrind, next to ozz-animation's
# figures from docs/benchmarks.md. Only the measured loop (one repetition) is instrumented.
#   bash bench/callgrind_ik.sh [BUILD_DIR]   (default: build; data from OSSA_SHARED_DATA)
set -euo pipefail
# shellcheck source=bench/callgrind_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/callgrind_common.sh"
callgrind_table "${1:-build}/bench/ossa-bench-ik" calls call 0 0
