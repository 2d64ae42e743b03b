#!/bin/bash
# Round 21B's second call: all 16 CUDA tests on R's exact binary (r21b 488b8e3 + -DMS_CU_K4_RTRIM); call 1 ran them on RL.
B=.devcarry/r21b
mkdir -p $OUT
export AB_BIN=$B AB_DESC="R=r21b 488b8e3 -DMS_CU_K4_RTRIM"
AB_STEPS="tests:R" BUDGET_S=125 bash scripts/gpu_run.sh ab > $OUT/tests_run.log 2>&1
echo "tests passed: $(grep -c '^ok ' $OUT/tests.log)" >> $OUT/tests.log
cat $OUT/machine.txt >> $OUT/tests.log 2>/dev/null
