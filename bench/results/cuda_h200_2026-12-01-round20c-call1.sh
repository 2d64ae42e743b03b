#!/usr/bin/env bash
# Round 20C's first device call (helper C, fifteenth session): stamps of DS and CKS (B=1,4,16, both shapes); A/B of
# D, CK, C, K, CKN (full setting B=1,4,16,32,64 both shapes, two alternating runs); top-p alone and bf16 of D and
# CK (B=1,16,64); then all 16 CUDA tests on CK. TOTAL_S: the budget.
set -u
T0=$(date +%s)
left() { echo $(( ${TOTAL_S:-235} - ($(date +%s) - T0) )); }
B=.devcarry/r20c
export AB_BIN=$B AB_DESC="D=main 6d11f28 (lead's build);DS=main 6d11f28 -DMS_CU_STAMPS (lead's build);CK=r20c -DMS_CU_K3_B0LATE -DMS_CU_CARVE=100;C=r20c -DMS_CU_CARVE=100;K=r20c -DMS_CU_K3_B0LATE;CKN=r20c CK + -DMS_CU_NO_K4_WARM;CKS=r20c CK + -DMS_CU_STAMPS"
echo "== call start $(date -u +%H:%M:%S)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
STAMPS_B=1,4,16 AB_STEPS="stamps:DS stamps:CKS" BUDGET_S=$(( $(left) - 200 )) bash scripts/gpu_run.sh ab > /tmp/ab0.log 2>&1
tail -1 /tmp/ab0.log
AB_VARIANTS="D CK C K CKN" AB_B=1,4,16,32,64 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=$(( $(left) - 140 )) bash scripts/gpu_run.sh ab > /tmp/ab1.log 2>&1
tail -1 /tmp/ab1.log
AB_VARIANTS="D CK" AB_B=1,16,64 AB_N=2 AB_SETTINGS=top-p AB_VARIANTS_DT="D CK" AB_B_DT=1,16,64 AB_N_DT=2 AB_STEPS="ab ab:bf16" BUDGET_S=$(( $(left) - 110 )) bash scripts/gpu_run.sh ab > /tmp/ab2.log 2>&1
tail -1 /tmp/ab2.log
AB_STEPS="tests:CK" BUDGET_S=$(( $(left) - 3 )) bash scripts/gpu_run.sh ab > /tmp/ab3.log 2>&1
grep -E "passed|failed|not ok|FAIL|differ" $OUT/tests.log | tail -20
tail -1 /tmp/ab3.log
rm -f $OUT/build.log
ls -la $OUT
echo "== call end $(date -u +%H:%M:%S) ($(( $(date +%s) - T0 )) s)"
