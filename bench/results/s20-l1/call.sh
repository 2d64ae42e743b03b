#!/bin/bash
# Lead's call L1 (twentieth session): round 28B's rule (-DMS_CU_OR_ONEWAVE=1) with the segment walk sized for 64k-token
# chunks (-DMS_CU_SEGW_CHUNK=65536), RS (built by helper B from r28b 3f77851), against D (s20/D, main's default).
B=.devcarry/l1
T0=$(date +%s)
DESC="D=main default (s20/D, 749eeac);RS=r28b 3f77851 + -DMS_CU_OR_ONEWAVE=1 -DMS_CU_SEGW_CHUNK=65536"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D RS" AB_B=106,112,128,144,160,176 AB_N=2 AB_SETTINGS=top-p,full AB_STEPS="ab" BUDGET_S=75 bash scripts/gpu_run.sh ab > $OUT/ab1.log 2>&1
echo "ab1: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D RS" AB_B=64,200,224,256 AB_N=1 AB_SETTINGS=full,top-p AB_VARIANTS_DT="D RS" AB_B_DT=112,128,160,176 AB_N_DT=1 AB_STEPS="ab ab:bf16" BUDGET_S=45 bash scripts/gpu_run.sh ab > $OUT/ab2.log 2>&1
echo "ab2: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="tests:RS" BUDGET_S=135 bash scripts/gpu_run.sh ab > $OUT/tests_run.log 2>&1
echo "all: $(( $(date +%s) - T0 )) s"; ls $OUT
