#!/bin/sh
# Runs one libFuzzer target for a while from its seed corpus, keeping everything it writes (new
# inputs, crash artifacts) in WORKDIR, never in the repository's corpus.
#   usage: run_fuzz.sh BINARY SEED_CORPUS_DIR WORKDIR SECONDS [extra libFuzzer flags...]
# MS_FUZZ_SECONDS in the environment overrides SECONDS (e.g. MS_FUZZ_SECONDS=5 ctest -L fuzz).
# Exit status: libFuzzer's (non-zero when it found a crash, a leak or a broken property).
set -eu
bin=$1 seeds=$2 work=$3 secs=${MS_FUZZ_SECONDS:-$4}
shift 4
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
exec "$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
     -artifact_prefix="$work/artifacts/" "$@" "$work/corpus" "$seeds"
