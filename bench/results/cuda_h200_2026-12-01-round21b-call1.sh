#!/bin/bash
# Round 21B's call: D = main's default (70f35c2 build, sm_90 SASS = e40eb42's), R = r21b 488b8e3 + -DMS_CU_K4_RTRIM,
# RL = r21b 488b8e3 + -DMS_CU_K4_RTRIM -DMS_CU_OR_BLIST; DS / RLS their stamps builds (bench only, + -DMS_CU_STAMPS).
B=.devcarry/r21b
mkdir -p $OUT
export AB_BIN=$B AB_DESC="D=main default (70f35c2);R=r21b 488b8e3 -DMS_CU_K4_RTRIM;RL=r21b 488b8e3 -DMS_CU_K4_RTRIM -DMS_CU_OR_BLIST;DS=D + MS_CU_STAMPS;RLS=RL + MS_CU_STAMPS"
date -u +"call start %H:%M:%S" > $OUT/bench.txt
AB_VARIANTS="D R RL" AB_B=52,64,128,200,256 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=80 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
AB_STEPS="tests:RL" BUDGET_S=130 bash scripts/gpu_run.sh ab > $OUT/tests_run.log 2>&1
echo "tests passed: $(grep -c '1 passed, 0 failed\|^ok ' $OUT/tests.log)" >> $OUT/tests.log
AB_VARIANTS_DT="D R RL" AB_B_DT=64,256 AB_N_DT=2 STAMPS_B=64,256 AB_STEPS="ab:bf16 stamps:DS stamps:RLS" BUDGET_S=55 bash scripts/gpu_run.sh ab > $OUT/ab_run2.log 2>&1
echo "== top-p alone" >> $OUT/bench.txt
AB_VARIANTS="D R RL" AB_B=64,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=35 bash scripts/gpu_run.sh ab > $OUT/ab_run3.log 2>&1
date -u +"call end %H:%M:%S" >> $OUT/bench.txt
cat $OUT/machine.txt >> $OUT/bench.txt 2>/dev/null
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name tests.log ! -name bench.txt ! -name stamps.txt -delete; mv /tmp/all.tgz . ; ls -la
