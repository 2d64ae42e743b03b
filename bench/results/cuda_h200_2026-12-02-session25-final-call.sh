#!/bin/bash
# Twenty-fifth session's final call. D = the session's start (main 1821d95's default, .devcarry/s24/D: kernels equal
# 1821d95's), M = the merged default with round 33B's MS_CU_OR_TAIL2 (R = 1024) on (rounds 33A and 33C merged off).
# check:M runs all CUDA tests, memcheck and racecheck on M; then the full setting of D and M side by side, alternating
# (three runs each), where the switch acts (the one-read steps: B >= 28 at V=151936 fp32) and controls where it does not
# (B=1, 16); bf16 B=64 / 128; V=262144 B=64 / 128; top-p alone B=64 (control).
B=.devcarry/fin25
mkdir -p $OUT
T0=$(date +%s)
DESC="D=1821d95 session start;M=merged default (round 33B's TAIL2 on; 33A and 33C off)"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="check:M" BUDGET_S=185 bash scripts/gpu_run.sh ab > $OUT/check_run.log 2>&1
echo "check: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D M" AB_B=1,16,28,32,48,64,96,128 AB_N=3 AB_SETTINGS=full \
AB_VARIANTS_DT="D M" AB_B_DT=64,128 AB_N_DT=2 AB_STEPS="ab ab:bf16" BUDGET_S=120 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_V=262144 AB_VARIANTS="D M" AB_B=64,128 AB_N=1 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/ab262_run.log 2>&1
echo "ab262: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D M" AB_B=64 AB_N=1 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=30 bash scripts/gpu_run.sh ab > $OUT/abtp_run.log 2>&1
echo "abtp: $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name tests.log ! -name bench.txt ! -name san.log -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
