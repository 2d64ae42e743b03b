#!/bin/bash
# Round 27B, a later call (not run by helper B): D = the baseline (s19/D), R = r27b ebfb3ef + -DMS_CU_K2_RPRE (the
# lite plain steps' K2 starts round 15A's cp.async ring before its PDL wait). A/B, then R's 16 tests.
B=.devcarry/r27b
mkdir -p $OUT
T0=$(date +%s)
tests() { for t in $($1 --list); do s=$(date +%s); timeout 150 $1 $t 2>&1 | tail -6; echo "   ($t: $(( $(date +%s) - s )) s)"; done; }
DESC="D=baseline 30b0a29 (main f499448 SASS);R=r27b ebfb3ef -DMS_CU_K2_RPRE"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D R" AB_B=1,2,4,16,24 AB_N=2 AB_SETTINGS=full,top-p AB_VARIANTS_DT="D R" AB_B_DT=1,16 AB_N_DT=2 \
AB_STEPS="ab ab:bf16" BUDGET_S=80 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
tests $B/R/ms_cuda_tests > $OUT/tests-R.log 2>&1
echo "R tests passed: $(grep -c '1 passed, 0 failed\|^ok ' $OUT/tests-R.log) ($(( $(date +%s) - T0 )) s)"
