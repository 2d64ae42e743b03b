#!/bin/bash
# Twenty-first session's final call. D0 = the session's start (main b1272aa's default, validated last session as a4b04ba's
# SASS), M = the merged default d34648c (round 29A's host rule MS_CU_OR_R29 on: K2's ring in 2-byte one-read steps with
# chunks >= 16384 tokens, the one-wave rule's 2-byte bound 65536, the fp32 load test; rounds 29B / 29C merged off),
# AT = round 29B's -DMS_CU_OR_TRANSPOSE build (bench only, never run before), MF = a FlashInfer 0.7.4 bench (main b1272aa).
B=.devcarry/fin21
mkdir -p $OUT
T0=$(date +%s)
DESC="D0=b1272aa session start;M=d34648c merged default (29A's MS_CU_OR_R29 on);AT=r29b -DMS_CU_OR_DYN -DMS_CU_OR_DYN_ALWAYS -DMS_CU_OR_DYN_RTQ=48 -DMS_CU_OR_TRANSPOSE"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="check:M" BUDGET_S=200 bash scripts/gpu_run.sh ab > $OUT/check_run.log 2>&1
echo "check: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D0 M" AB_B=1,16,32,64,106,128,160,176,256 AB_N=2 AB_SETTINGS=full,top-p AB_VARIANTS_DT="D0 M" AB_B_DT=32,48,64,112,176 AB_N_DT=2 \
AB_STEPS="ab ab:bf16" BUDGET_S=150 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_V=262144 AB_VARIANTS="D0 M" AB_B=64,84,100,128 AB_N=1 AB_SETTINGS=full,top-p AB_B_DT=80,128 AB_N_DT=1 AB_STEPS="ab ab:bf16" BUDGET_S=50 bash scripts/gpu_run.sh ab > $OUT/ab262_run.log 2>&1
echo "ab262: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D0 AT" AB_B=32,64,96 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/abt_run.log 2>&1
echo "abT: $(( $(date +%s) - T0 )) s"
OUT=$OUT/fi FI_BIN=$B/MF/ms_bench_cuda BENCH_T=60 bash scripts/gpu_flashinfer.sh --no-baseline --vocab 151936 --batch 1,16,64,256 --shape both --setting both > $OUT/fi_run.log 2>&1
echo "fi: $(( $(date +%s) - T0 )) s"
cd $OUT && cp fi/bench_fi.md fi.md 2>/dev/null
tar czf /tmp/all.tgz . && find . -type f ! -name tests.log ! -name bench.txt ! -name san.log ! -name fi.md ! -name machine.txt -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
