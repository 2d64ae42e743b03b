#!/usr/bin/env bash
# round 16C, call 1: W (-DMS_CU_K2_WARM) against D (main b2c4fc1's default, .devcarry/fin/MG): ab B=1,2,4,16,64 full
# and top-p, both shapes, two alternating runs; stamps of DS and WS at B=1 (if carried); all CUDA tests on W; memcheck and
# racecheck on W.
set -uo pipefail
C=.devcarry/r16c
RO=${OUT:-/tmp/ro}; mkdir -p $RO
O=$RO
T0=$(date +%s)
el() { echo "== $* (t=$(( $(date +%s) - T0 )) s, $(date -u +%H:%M:%S))"; }
export OUT=$O
DESC="D=main b2c4fc1 default (fin/MG);W=r16c -DMS_CU_K2_WARM;DS=D -DMS_CU_STAMPS (r16c tree, default flags);WS=W -DMS_CU_STAMPS"
el "ab D W"
AB_BIN=$C AB_VARIANTS="D W" AB_B=1,2,4,16,64 AB_N=2 AB_SETTINGS=full,top-p AB_STEPS="ab" AB_DESC="$DESC" BUDGET_S=70 bash scripts/gpu_run.sh ab >/dev/null 2>&1
cat $O/build.log $O/bench.txt
for v in DS WS; do
  [ -x build-gpu$v/ms_bench_cuda ] || continue
  el "stamps $v B=1 flat, peaked"
  for shape in flat peaked; do
    MS_BENCH_STAMPS=1 timeout 20 build-gpu$v/ms_bench_cuda --setting full --vocab 151936 --batch 1 --shape $shape --reps 3 --no-baseline 2>&1 | grep -v "^#"
  done
done
el "tests and sanitizers on W"
AB_BIN=$C AB_STEPS="tests:W san:W" AB_DESC="$DESC" BUDGET_S=$(( ${CALL_S:-250} - ($(date +%s) - T0) - 3 )) bash scripts/gpu_run.sh ab >/dev/null 2>&1
cat $O/tests.log $O/san.log
el "end"
true
