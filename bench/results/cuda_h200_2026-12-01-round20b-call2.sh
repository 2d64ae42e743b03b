#!/bin/bash
# Round 20B's second call: D = main 6d11f28 (default), T2 = r20b cb1a22b + -DMS_CU_K4_TWO. (B=52, bf16 and the stamps
# left out: the device-time cap.)
B=.devcarry/r20b
mkdir -p $OUT
export AB_BIN=$B AB_DESC="D=main 6d11f28 default;T2=r20b cb1a22b -DMS_CU_K4_TWO"
AB_VARIANTS="D T2" AB_B=64,128,200,256 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "== top-p alone" >> $OUT/bench.txt
AB_VARIANTS="D T2" AB_B=64,256 AB_N=1 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=30 bash scripts/gpu_run.sh ab > $OUT/ab_run2.log 2>&1
AB_STEPS="tests:T2" BUDGET_S=114 bash scripts/gpu_run.sh ab > $OUT/tests_run.log 2>&1
echo "tests passed: $(grep -c '^ok ' $OUT/tests.log)"; grep -i 'fail' $OUT/tests.log | grep -v ' 0 failed' | head -5
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name tests.log ! -name bench.txt -delete; mv /tmp/all.tgz . ; ls -la
