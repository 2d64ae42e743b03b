#!/bin/bash
# Twenty-sixth session's default call. D = the session's start (main 35bf75e's default, .devcarry/s25/D), F = the new
# default as committed: round 34A's MS_CU_WARM_CHUNK on at c = 1536 (host only: the kernels' SASS equals D's), rounds
# 34B and 34C merged off. check:F runs all CUDA tests, memcheck and racecheck on F's own binaries; then D and F side by
# side, alternating (three runs each, D first), where the rule acts (fp32 B=1 at V=151936 and V=262144) and controls
# where it does not (B=2, 4; bf16 B=1); top-p alone B=1.
B=.devcarry/fin26b
mkdir -p $OUT
T0=$(date +%s)
DESC="D=35bf75e session start;F=new default (round 34A's WARM_CHUNK=1536 on)"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="check:F" BUDGET_S=185 bash scripts/gpu_run.sh ab > $OUT/check_run.log 2>&1
echo "check: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D F" AB_B=1,2,4 AB_N=3 AB_SETTINGS=full,top-p \
AB_VARIANTS_DT="D F" AB_B_DT=1 AB_N_DT=2 AB_STEPS="ab ab:bf16" BUDGET_S=90 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_V=262144 AB_VARIANTS="D F" AB_B=1,2 AB_N=3 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=50 bash scripts/gpu_run.sh ab > $OUT/ab262_run.log 2>&1
echo "ab262: $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name tests.log ! -name bench.txt ! -name san.log -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
