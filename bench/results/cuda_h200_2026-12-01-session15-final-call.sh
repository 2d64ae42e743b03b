#!/bin/bash
# Fifteenth session's final call. D0 = 6d11f28 (the session's start: the fourteenth session's final default),
# M = the merged default (rounds 20A's MS_CU_OR_WSTAGE and 20B's MS_CU_K4_TWO on), MS = M + MS_CU_STAMPS (bench only).
# Tests and sanitizers of M run side by side first, then the benches alone.
B=.devcarry/fin15
mkdir -p $OUT
T=$B/M/ms_cuda_tests
( for t in $($T --list); do s=$(date +%s); timeout 150 $T $t 2>&1 | tail -6; echo "   ($t: $(( $(date +%s) - s )) s)"; done > $OUT/tests.log 2>&1 ) &
sleep 2
AB_BIN=$B AB_STEPS="san:M" BUDGET_S=200 bash scripts/gpu_run.sh ab > $OUT/san_run.log 2>&1
wait
echo "tests passed: $(grep -c '1 passed, 0 failed\|^ok ' $OUT/tests.log)"; grep -i 'fail' $OUT/tests.log | grep -v ' 0 failed' | head -5
AB_BIN=$B AB_DESC="D0=6d11f28 session start;M=merged default (20A WSTAGE, 20B K4_TWO on);MS=M + MS_CU_STAMPS" \
AB_VARIANTS="D0 M" AB_B=1,16,64,128,200,256 AB_N=2 AB_SETTINGS=full,top-p AB_VARIANTS_DT="D0 M" AB_B_DT=64,128,256 AB_N_DT=1 \
STAMPS_B=64,256 AB_STEPS="ab ab:bf16 stamps:MS" BUDGET_S=200 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name tests.log ! -name bench.txt ! -name san.log -delete; mv /tmp/all.tgz . ; ls -la
