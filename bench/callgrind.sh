#!/usr/bin/env bash
# Instructions per call of each ossa-bench measure under callgrind, next to ozz-animation's
# figures from docs/benchmarks.md. Only the measured loop (one repetition) is instrumented.
#   bash bench/callgrind.sh [BUILD_DIR [TOLERANCE_METRES]]   (default: build, 0.0001)
set -euo pipefail
# shellcheck source=bench/callgrind_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/callgrind_common.sh"
callgrind_table "${1:-build}/bench/ossa-bench" calls call 0 1 --tolerance "${2:-0.0001}"
