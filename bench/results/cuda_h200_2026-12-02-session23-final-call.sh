#!/bin/bash
# Twenty-third session's final call. D = the session's start (main 55ca3aa's default, .devcarry/s23/D), M = the merged
# default with round 31A's row cut from K1's warp maxima on, its bins in their own array (MS_CU_K1_ROWCUT,
# MS_CU_K1_RC_OWN); rounds 31B and 31C merged off. check:M runs all CUDA tests, memcheck and racecheck on M; then the
# full setting of D and M side by side, alternating (two runs each), where the rule takes the cut (B >= 8 at V=151936)
# and where it does not (B=1..4; B=64: one-read), bf16 and V=262144 at B=1 / 8 / 16, and top-p alone B=16 (control).
B=.devcarry/fin23
mkdir -p $OUT
T0=$(date +%s)
DESC="D=55ca3aa session start;M=merged default (round 31A's row cut on, bins in their own array; 31B and 31C off)"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="check:M" BUDGET_S=175 bash scripts/gpu_run.sh ab > $OUT/check_run.log 2>&1
echo "check: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D M" AB_B=1,2,4,8,16,24,64 AB_N=2 AB_SETTINGS=full \
AB_VARIANTS_DT="D M" AB_B_DT=1,8,16 AB_N_DT=1 AB_STEPS="ab ab:bf16" BUDGET_S=85 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_V=262144 AB_VARIANTS="D M" AB_B=1,8,16 AB_N=1 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=45 bash scripts/gpu_run.sh ab > $OUT/ab262_run.log 2>&1
echo "ab262: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D M" AB_B=16 AB_N=1 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=35 bash scripts/gpu_run.sh ab > $OUT/abtp_run.log 2>&1
echo "abtp: $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name tests.log ! -name bench.txt ! -name san.log ! -name machine.txt ! -name '*_run.log' -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
