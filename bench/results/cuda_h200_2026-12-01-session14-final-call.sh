#!/bin/bash
# Fourteenth session's final call. D0 = ea7f63c (the session's start: the thirteenth session's final default),
# M = the merged default (rounds 18D, 19B, 19C on), MS = M + MS_CU_STAMPS (bench only), MF = M's bench with FlashInfer 0.7.4
# compiled in. Tests and sanitizers of M run side by side first, then the benches alone.
B=.devcarry/fin14
mkdir -p $OUT
T=$B/M/ms_cuda_tests
( for t in $($T --list); do s=$(date +%s); timeout 150 $T $t 2>&1 | tail -6; echo "   ($t: $(( $(date +%s) - s )) s)"; done > $OUT/tests.log 2>&1 ) &
sleep 2
AB_BIN=$B AB_STEPS="san:M" BUDGET_S=200 bash scripts/gpu_run.sh ab > $OUT/san_run.log 2>&1
wait
echo "tests passed: $(grep -c '1 passed, 0 failed\|^ok ' $OUT/tests.log)"; grep -i 'fail' $OUT/tests.log | grep -v ' 0 failed' | head -5
AB_BIN=$B AB_DESC="D0=ea7f63c session start;M=merged default (18D, 19B, 19C on);MS=M + MS_CU_STAMPS" \
AB_VARIANTS="D0 M" AB_B=1,4,16,32,64,128,256 AB_N=2 AB_SETTINGS=full,top-p AB_VARIANTS_DT="D0 M" AB_B_DT=1,16,64,128 AB_N_DT=1 \
STAMPS_B=1,64 AB_STEPS="ab ab:bf16 stamps:MS" BUDGET_S=200 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "== warm logits (MS_BENCH_REWRITE=1: each step's graph first copies the logits into its input), M" >> $OUT/bench.txt
MS_BENCH_REWRITE=1 timeout 40 build-gpuM/ms_bench_cuda --setting full --vocab 151936 --batch 1,16,64,256 --shape both --reps 3 --no-baseline >> $OUT/bench.txt 2>&1
OUT=$OUT/fi FI_BIN=$B/MF/ms_bench_cuda BENCH_T=60 bash scripts/gpu_flashinfer.sh --no-baseline --vocab 151936 --batch 1,16,64,256 --shape both --setting both > /dev/null 2>&1
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name tests.log ! -name bench.txt ! -name san.log -delete; rm -rf fi; mv /tmp/all.tgz . ; ls -la
