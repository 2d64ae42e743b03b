#!/bin/bash
# Twenty-second session's final call. D = the session's start (main f0b09f1's default: its host rewrites of d022076
# never ran on the GPU before this session's helpers' calls), M = the merged default (rounds 30A-30C merged off; the
# default's sm_90 cubin byte-identical to f0b09f1's). check:M runs all CUDA tests, memcheck and racecheck on M; then the
# bench of D and M side by side (one run each) and M's figures at fp32 / bf16 / fp16 and V=262144.
B=.devcarry/fin22
mkdir -p $OUT
T0=$(date +%s)
DESC="D=f0b09f1 session start;M=merged default (rounds 30A-30C merged off)"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="check:M" BUDGET_S=200 bash scripts/gpu_run.sh ab > $OUT/check_run.log 2>&1
echo "check: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D M" AB_B=1,16,32,64,106,128,176,256 AB_N=1 AB_SETTINGS=full,top-p \
AB_VARIANTS_DT="M" AB_B_DT=1,16,64,128,176,256 AB_N_DT=1 AB_STEPS="ab ab:bf16 ab:f16" BUDGET_S=110 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_V=262144 AB_VARIANTS="M" AB_B=1,16,64,128,256 AB_N=1 AB_SETTINGS=full,top-p AB_STEPS="ab" BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/ab262_run.log 2>&1
echo "ab262: $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name tests.log ! -name bench.txt ! -name san.log ! -name machine.txt ! -name '*_run.log' -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
