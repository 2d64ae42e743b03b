#!/usr/bin/env bash
# Round 20A, call 2 (helper A): A/B of D, W, R2b, R2a (full setting B=52..256 both shapes, 2 runs; bf16 B=64,128 2 runs
# of D and W), stamps at B=64 of DC2 (D + the counters, spread), then all 16 tests on W, or on R2b where its full-setting
# sum over the 8 cells is more than 2 us below W's.
export AB_BIN=.devcarry/r20a
export AB_DESC="D=main 6d11f28 (default);W=D + -DMS_CU_OR_WSTAGE;R2b=W + -DMS_CU_OR_ROWCUT -DMS_CU_OR_SCAN0=2 (own workspace, no wait);R2a=W + -DMS_CU_OR_ROWCUT (own workspace, no wait);DC2=D with -DMS_CU_STAMPS + round 20A's counters (32 copies)"
date -u
AB_VARIANTS="D W R2b R2a" AB_B=52,64,128,256 AB_N=2 AB_SETTINGS=full AB_B_DT=64,128 AB_N_DT=2 AB_VARIANTS_DT="D W" \
  AB_STEPS="ab stamps:DC2 ab:bf16" STAMPS_B=64 BUDGET_S=${B1:-80} bash scripts/gpu_run.sh ab
sum() { awk -v v="$1" '/^== bench /{c=($3=="full," && $5==v && $0 !~ /, bf16 \(/)} c && $1=="full" {s+=$5} END{printf "%.2f", s}' $OUT/bench.txt; }
SW=$(sum W); SR=$(sum R2b)
T=$(awk -v w=$SW -v r=$SR 'BEGIN{print (r > 0 && r < w - 2.0) ? "R2b" : "W"}')
echo "full-setting sums (2 runs x 8 cells): W $SW, R2b $SR: tests on $T" | tee -a $OUT/bench.txt
AB_STEPS="tests:$T" BUDGET_S=${B3:-120} bash scripts/gpu_run.sh ab
date -u
