#!/bin/bash
# Twenty-seventh session's final call. D = the session's start (main 3666153's default, .devcarry/s27/F: kernels equal
# 35bf75e's). M = the merged tree built with round 35C's -DMS_CU_K4_IDSCAN=1 (ms_cu_k4w's draw in warp 0 by id rank: B=1)
# and round 35A's -DMS_CU_OR_TKGATE=2 (K2or's stk by a plain load, the scan gated on the stage reaching k': B >= 28), the
# two recommended on; they act at disjoint B. check:M runs all CUDA tests, memcheck and racecheck on M; then the full
# setting of D and M side by side, alternating (three runs each, D first); bf16; top-p alone; V=262144 B=1 (K4w there
# too) and 64. (The carry holds D's bench and M's bench and tests only: the working tree and carry must fit 64 MiB.)
B=.devcarry/fin27
mkdir -p $OUT
T0=$(date +%s)
DESC="D=3666153 session start;M=merged tree with K4_IDSCAN=1 and OR_TKGATE=2"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="check:M" BUDGET_S=185 bash scripts/gpu_run.sh ab > $OUT/check_run.log 2>&1
echo "check: $(( $(date +%s) - T0 )) s"
mv $OUT/tests.log $OUT/tests_m.log
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D M" AB_B=1,2,16,28,32,48,64,96,128 AB_N=3 AB_SETTINGS=full \
AB_VARIANTS_DT="D M" AB_B_DT=1,64 AB_N_DT=2 AB_STEPS="ab ab:bf16" BUDGET_S=170 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
mv $OUT/bench.txt $OUT/bench_main.txt
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D M" AB_B=1,64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/abtp_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_tp.txt
AB_BIN=$B AB_DESC="$DESC" AB_V=262144 AB_VARIANTS="D M" AB_B=1,64 AB_N=3 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=35 bash scripts/gpu_run.sh ab > $OUT/ab262_run.log 2>&1
mv $OUT/bench.txt $OUT/bench_262.txt
echo "all: $(( $(date +%s) - T0 )) s"
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name 'tests_*.log' ! -name 'bench_*.txt' ! -name san.log -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
