#!/bin/bash
# Seventeenth session's final call. D0 = the session's start (f982925's default), M = the merged default (rounds 23C's
# MS_CU_SEGW, 24D's MS_CU_K2_HLEAN + MS_CU_K3_SLEAN and 21C/23A's MS_CU_K4_PWOWN + MS_CU_K3W_B0LATE on), MS = M + MS_CU_STAMPS (bench only), MF = M's bench with
# FlashInfer 0.7.4's headers compiled in. Tests of M and its sanitizers side by side first, then the benches alone.
B=.devcarry/fin17
mkdir -p $OUT
T0=$(date +%s)
tests() { for t in $($1 --list); do s=$(date +%s); timeout 150 $1 $t 2>&1 | tail -6; echo "   ($t: $(( $(date +%s) - s )) s)"; done; }
( tests $B/M/ms_cuda_tests > $OUT/tests-M.log 2>&1 ) &
sleep 2
SANSET=$(sed -n 's/^SANSET="\(.*\)"/\1/p' scripts/gpu_run.sh); RACESET=$(sed -n 's/^RACESET="\(.*\)"/\1/p' scripts/gpu_run.sh)
san() { # variant, tool, tests: gpu_run.sh's run_san with a log of its own
  local x=""; [ $2 = memcheck ] && x="--leak-check full"; local s=$(date +%s)
  MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout 200 compute-sanitizer --tool $2 $x --error-exitcode 9 $B/$1/ms_cuda_tests $3 > $OUT/raw-$1-$2.log 2>&1
  echo "compute-sanitizer $2 on $1: exit $? in $(( $(date +%s) - s )) s" > $OUT/san-$1-$2.log
  grep -E "^ok|^not ok|rows compared|ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|hazard|rror" $OUT/raw-$1-$2.log | head -30 >> $OUT/san-$1-$2.log
}
( san M memcheck "$SANSET" ) & ( san M racecheck "$RACESET" ) &
wait
echo "phase 1: $(( $(date +%s) - T0 )) s"
echo "M tests passed: $(grep -c '1 passed, 0 failed\|^ok ' $OUT/tests-M.log)"; grep -i 'fail' $OUT/tests-M.log | grep -v ' 0 failed' | head -5
AB_BIN=$B AB_DESC="D0=f982925 session start;M=merged default (23C SEGW, 24D HLEAN SLEAN, 21C/23A PWOWN K3W_B0LATE on);MS=M + MS_CU_STAMPS" \
AB_VARIANTS="D0 M" AB_B=1,4,16,52,64,128,256 AB_N=2 AB_SETTINGS=full,top-p AB_VARIANTS_DT="D0 M" AB_B_DT=1,64,256 AB_N_DT=1 \
STAMPS_B=1,64 AB_STEPS="ab ab:bf16 stamps:MS" BUDGET_S=130 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
OUT=$OUT/fi FI_BIN=$B/MF/ms_bench_cuda BENCH_T=45 bash scripts/gpu_flashinfer.sh --no-baseline --vocab 151936 > $OUT/fi_run.log 2>&1
echo "all: $(( $(date +%s) - T0 )) s"
cd $OUT && cat san-*.log > san.log; cp fi/bench_fi.md fi.md 2>/dev/null
tar czf /tmp/all.tgz . && find . -type f ! -name 'tests-*.log' ! -name bench.txt ! -name san.log ! -name stamps.txt ! -name fi.md -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
