#!/bin/bash
# Round 27B, call 1. D = the baseline (30b0a29's validated binaries, SASS = main f499448's default), DS its stamps build;
# PQ = -DMS_CU_K2_PRE -DMS_CU_K1_PRE (K2's lite scan and K1's chunk max: first loads before the PDL wait / at entry),
# PQS = PQ + MS_CU_STAMPS + MS_CU_R27B_STW (extra stamps: 26 K2 lite before its wait, 27 drained, 30 cand_n returned).
B=.devcarry/r27b
mkdir -p $OUT
T0=$(date +%s)
tests() { for t in $($1 --list); do s=$(date +%s); timeout 150 $1 $t 2>&1 | tail -6; echo "   ($t: $(( $(date +%s) - s )) s)"; done; }
DESC="D=baseline 30b0a29 (main f499448 SASS);PQ=-DMS_CU_K2_PRE -DMS_CU_K1_PRE;DS=D + MS_CU_STAMPS;PQS=PQ + MS_CU_STAMPS + MS_CU_R27B_STW"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D PQ" AB_B=1,2,4,16 AB_N=2 AB_SETTINGS=full AB_VARIANTS_DT="D PQ" AB_B_DT=1,16 AB_N_DT=2 \
STAMPS_B=1 AB_STEPS="ab ab:bf16 stamps:DS stamps:PQS" BUDGET_S=110 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
mv $OUT/bench.txt $OUT/bench-full.txt
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D PQ" AB_B=1,16 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/ab_topp_run.log 2>&1
echo "ab top-p: $(( $(date +%s) - T0 )) s"
mv $OUT/bench.txt $OUT/bench-topp.txt
tests $B/PQ/ms_cuda_tests > $OUT/tests-PQ.log 2>&1
echo "tests: $(( $(date +%s) - T0 )) s"
echo "PQ tests passed: $(grep -c '1 passed, 0 failed\|^ok ' $OUT/tests-PQ.log)"; grep -i 'fail' $OUT/tests-PQ.log | grep -v ' 0 failed' | head -5
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name 'tests-PQ.log' ! -name 'bench-*.txt' ! -name stamps.txt -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
