#!/bin/bash
# Round 27B, call 2. D = the baseline (30b0a29's validated binaries, SASS = main f499448's default); P2 = -DMS_CU_K2_PRE
# (fp32 lite rows: K2's first loads before its PDL wait); P3 = -DMS_CU_K2_PRE=2 (the same loads right after the wait,
# beside the row max's load); P3S = P3 + MS_CU_STAMPS + MS_CU_R27B_STW. Tests of P3 only if it is faster at B=1.
B=.devcarry/r27b
mkdir -p $OUT
T0=$(date +%s)
tests() { for t in $($1 --list); do s=$(date +%s); timeout 150 $1 $t 2>&1 | tail -6; echo "   ($t: $(( $(date +%s) - s )) s)"; done; }
DESC="D=baseline 30b0a29 (main f499448 SASS);P2=-DMS_CU_K2_PRE (before the wait, fp32);P3=-DMS_CU_K2_PRE=2 (after the wait, fp32);P3S=P3 + MS_CU_STAMPS + MS_CU_R27B_STW"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D P2 P3" AB_B=1,2,4,16 AB_N=2 AB_SETTINGS=full AB_VARIANTS_DT="D P3" AB_B_DT=1,16 AB_N_DT=2 \
STAMPS_B=1 AB_STEPS="ab ab:bf16 stamps:P3S" BUDGET_S=90 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
mv $OUT/bench.txt $OUT/bench-full.txt
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D P3" AB_B=1,16 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/ab_topp_run.log 2>&1
echo "ab top-p: $(( $(date +%s) - T0 )) s"
mv $OUT/bench.txt $OUT/bench-topp.txt
# P3's mean minus D's over the four full fp32 B=1 runs of each
gain=$(awk '/^== bench full/ {v=$5; bf=/bf16/} !bf && $1=="full" && $3==1 {s[v]+=$5; n[v]++} END {printf "%.2f", s["P3"]/n["P3"] - s["D"]/n["D"]}' $OUT/bench-full.txt)
echo "P3 - D at B=1 (full, fp32, mean of flat and peaked runs): $gain us"
if awk -v g=$gain 'BEGIN {exit !(g < -0.1)}'; then
  tests $B/P3/ms_cuda_tests > $OUT/tests-P3.log 2>&1
  echo "tests: $(( $(date +%s) - T0 )) s"
  echo "P3 tests passed: $(grep -c '1 passed, 0 failed\|^ok ' $OUT/tests-P3.log)"; grep -i 'fail' $OUT/tests-P3.log | grep -v ' 0 failed' | head -5
else
  echo "P3 not faster at B=1: no tests"
fi
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name 'tests-P3.log' ! -name 'bench-*.txt' ! -name stamps.txt -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
