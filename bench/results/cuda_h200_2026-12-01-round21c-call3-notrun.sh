#!/usr/bin/env bash
# Round 21C's follow-up call (NOT RUN in the sixteenth session): A/B of D, WK and OK (-DMS_CU_K4_PWOWN
# -DMS_CU_K3W_B0LATE, e718a89) at full setting B=1,4,16,32 both shapes (three alternating runs) and bf16 B=1,4,16 (two),
# then all 16 CUDA tests on OK. About 130 s of command time. TOTAL_S: the budget.
set -u
T0=$(date +%s)
left() { echo $(( ${TOTAL_S:-170} - ($(date +%s) - T0) )); }
export AB_BIN=.devcarry/r21c AB_DESC="D=main e40eb42 (lead's build of 70f35c2);WK=r21c 62cc017 -DMS_CU_K4_PWARM -DMS_CU_K3_B0LATE;OK=r21c e718a89 -DMS_CU_K4_PWOWN -DMS_CU_K3W_B0LATE"
echo "== call start $(date -u +%H:%M:%S)"
AB_VARIANTS="D OK WK" AB_B=1,4,16,32 AB_N=3 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=$(( $(left) - 125 )) bash scripts/gpu_run.sh ab > /tmp/ab1.log 2>&1
AB_VARIANTS_DT="D OK" AB_B_DT=1,4,16 AB_N_DT=2 AB_SETTINGS=full AB_STEPS="ab:bf16" BUDGET_S=$(( $(left) - 115 )) bash scripts/gpu_run.sh ab > /tmp/ab2.log 2>&1
AB_STEPS="tests:OK" BUDGET_S=$(( $(left) - 3 )) bash scripts/gpu_run.sh ab > /tmp/ab3.log 2>&1
grep -E "passed|failed|not ok|FAIL|differ" $OUT/tests.log | tail -20
rm -f $OUT/build.log
echo "== call end $(date -u +%H:%M:%S) ($(( $(date +%s) - T0 )) s)"
