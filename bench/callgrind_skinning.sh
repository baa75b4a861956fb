#!/usr/bin/env bash
# Instructions per vertex of each ossa-bench-skinning measure under callgrind, next to
# ozz-animation's SkinningJob figures from docs/benchmarks.md. Only the measured loop (one
# repetition) is instrumented.
#   bash bench/callgrind_skinning.sh [BUILD_DIR]   (default: build)
set -euo pipefail
# shellcheck source=bench/callgrind_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/callgrind_common.sh"
callgrind_table "${1:-build}/bench/ossa-bench-skinning" vertices vertex 1 0
