#!/bin/bash
# Round 20B's call: D = main 6d11f28 (default), T = r20b 4944690 + -DMS_CU_K4_TWO; DS / TS their stamps builds (bench only).
B=.devcarry/r20b
mkdir -p $OUT
export AB_BIN=$B AB_DESC="D=main 6d11f28 default;T=r20b 4944690 -DMS_CU_K4_TWO;DS=D + MS_CU_STAMPS;TS=T + MS_CU_STAMPS"
AB_VARIANTS="D T" AB_B=52,64,128,200,256 AB_N=2 AB_SETTINGS=full AB_VARIANTS_DT="D T" AB_B_DT=64,256 AB_N_DT=2 \
STAMPS_B=64,256 AB_STEPS="ab ab:bf16 stamps:DS stamps:TS" BUDGET_S=150 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "== top-p alone" >> $OUT/bench.txt
AB_VARIANTS="D T" AB_B=64,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=60 bash scripts/gpu_run.sh ab > $OUT/ab_run2.log 2>&1
AB_STEPS="tests:T" BUDGET_S=150 bash scripts/gpu_run.sh ab > $OUT/tests_run.log 2>&1
echo "tests passed: $(grep -c '1 passed, 0 failed\|^ok ' $OUT/tests.log)"; grep -i 'fail' $OUT/tests.log | grep -v ' 0 failed' | head -5
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name tests.log ! -name bench.txt ! -name stamps.txt -delete; mv /tmp/all.tgz . ; ls -la
