#!/bin/bash
# Twenty-sixth session's final call. D = the session's start (main 35bf75e's default, .devcarry/s25/D: kernels equal
# 35bf75e's), M = the merged tree built with round 34A's -DMS_CU_WARM_CHUNK=1536 (host only: the warm-up steps, B=1 at
# V=151936 fp32, in chunks of at least 1536 tokens) and round 34C's -DMS_CU_OR_LOOP2=3 (the one-read pass's main loop in
# fewer instructions: B >= 28 at V=151936 fp32). The two act at disjoint B. check:M runs all CUDA tests, memcheck and
# racecheck on M; then the full setting of D and M side by side, alternating (three runs each, D first), B=1, 2 (a
# control: neither switch acts there) and the one-read steps B=28..128; bf16 B=1 / 64; top-p alone B=1 / 64.
B=.devcarry/fin26
mkdir -p $OUT
T0=$(date +%s)
DESC="D=35bf75e session start;M=merged tree with WARM_CHUNK=1536 and OR_LOOP2=3"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="check:M" BUDGET_S=185 bash scripts/gpu_run.sh ab > $OUT/check_run.log 2>&1
echo "check: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D M" AB_B=1,2,28,32,48,64,96,128 AB_N=3 AB_SETTINGS=full \
AB_VARIANTS_DT="D M" AB_B_DT=1,64 AB_N_DT=2 AB_STEPS="ab ab:bf16" BUDGET_S=130 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D M" AB_B=1,64 AB_N=1 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=30 bash scripts/gpu_run.sh ab > $OUT/abtp_run.log 2>&1
echo "abtp: $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name tests.log ! -name bench.txt ! -name san.log -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
