#!/usr/bin/env bash
# Round 21C's second device call (helper C): more alternating runs of D, WK, W (full setting fp32 B=1..128 both shapes,
# three runs; bf16 full B=1,4,16 two runs) to tell call 1's B=4 / bf16 B=16 differences from noise. TOTAL_S: the budget.
set -u
T0=$(date +%s)
left() { echo $(( ${TOTAL_S:-80} - ($(date +%s) - T0) )); }
B=.devcarry/r21c
export AB_BIN=$B AB_DESC="D=main e40eb42 (lead's build of 70f35c2, same sm_90 SASS);W=r21c -DMS_CU_K4_PWARM;WK=r21c -DMS_CU_K4_PWARM -DMS_CU_K3_B0LATE"
echo "== call start $(date -u +%H:%M:%S)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
AB_VARIANTS="D WK W" AB_B=1,4,16,32,64,128 AB_N=3 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=$(( $(left) - 25 )) bash scripts/gpu_run.sh ab > /tmp/ab1.log 2>&1
tail -1 /tmp/ab1.log
AB_VARIANTS_DT="D WK W" AB_B_DT=1,4,16 AB_N_DT=2 AB_SETTINGS=full AB_STEPS="ab:bf16" BUDGET_S=$(( $(left) - 3 )) bash scripts/gpu_run.sh ab > /tmp/ab3.log 2>&1
tail -1 /tmp/ab3.log
rm -f $OUT/build.log $OUT/machine.txt
ls -la $OUT
echo "== call end $(date -u +%H:%M:%S) ($(( $(date +%s) - T0 )) s)"
