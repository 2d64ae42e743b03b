#!/usr/bin/env bash
# Round 19C, second (short) call: the new default C against N = C built with -DMS_CU_NO_K4_WARM (no K4 warm-up pass;
# the pass only runs at B <= 3), full setting B=1,2,3, both shapes, two alternating runs each.
set -u
AB_BIN=.devcarry/r19c2 AB_DESC="C=r19c 55dbf9e C (= the new default d0e35bb);N=r19c a93cc0b -DMS_CU_NO_K4_WARM" AB_VARIANTS="C N" AB_B=1,2,3 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=${TOTAL_S:-50} bash scripts/gpu_run.sh ab > /tmp/ab.log 2>&1
tail -1 /tmp/ab.log
rm -f $OUT/build.log
grep -v '^#' $OUT/bench.txt
