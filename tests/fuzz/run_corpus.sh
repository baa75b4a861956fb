#!/usr/bin/env bash
# Runs one libFuzzer target over its checked-in corpus, then mutates it for a few seconds:
#   run_corpus.sh FUZZER CORPUS_DIR SECONDS [LIBFUZZER FLAGS...]
# Every corpus file is executed first, so a regression of any entry (each crash once found is
# kept as one) fails the run; the short mutation phase catches what a change made easy to reach.
# New inputs go to a temporary folder, never into the source tree's corpus, and a crash input is
# written there too and its path printed. Exit status: libFuzzer's (0 when nothing was found).
set -euo pipefail
fuzzer=$1 corpus=$2 seconds=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/new"
rc=0
# -rss_limit_mb: an input that makes an importer allocate without bound fails like a crash.
"$fuzzer" "$work/new" "$corpus" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=25 \
  -print_final_stats=1 -artifact_prefix="$work/" "$@" || rc=$?
if ((rc != 0)); then
  for f in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* "$work"/slow-unit-*; do
    [[ -e $f ]] || continue
    echo "finding: $(basename "$f") ($(wc -c <"$f") bytes), base64:"
    base64 -w 0 "$f"
    echo
  done
fi
exit "$rc"
