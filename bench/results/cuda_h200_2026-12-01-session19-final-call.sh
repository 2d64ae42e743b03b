#!/bin/bash
# Nineteenth session's final call. D0 = the session's start (the binaries validated last session, built from 30b0a29;
# their kernels' SASS = main f499448's default), M = the merged default (round 27C's MS_CU_K3_FASTX + MS_CU_K3_FASTL on,
# ms_cu_slot_row; rounds 27A / 27B: knobs and off switches only), MS = M + MS_CU_STAMPS (bench only), MF = M's bench
# with FlashInfer 0.7.4's headers, M6 / M8 = M with round 27A's MS_BENCH_ORWAVES=6 / 8 (a measurement, not a default).
# Tests of M and its sanitizers side by side first, then the benches alone.
B=.devcarry/fin19
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
DESC="D0=30b0a29 session start (main f499448 SASS);M=merged default (27C K3_FASTX + K3_FASTL on, ms_cu_slot_row);MS=M + MS_CU_STAMPS;M6=M with MS_BENCH_ORWAVES=6;M8=M with MS_BENCH_ORWAVES=8"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D0 M" AB_B=1,2,4,16,32,64,128,256 AB_N=2 AB_SETTINGS=full,top-p AB_VARIANTS_DT="D0 M" AB_B_DT=1,64,256 AB_N_DT=1 \
STAMPS_B=1,64 AB_STEPS="ab ab:bf16 stamps:MS" BUDGET_S=120 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="M M6 M8" AB_B=96,112,128,160,192,224 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=40 bash scripts/gpu_run.sh ab > $OUT/abq_run.log 2>&1
echo "abq: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_V=262144 AB_VARIANTS="D0 M" AB_B=1,17,29,64 AB_N=1 AB_SETTINGS=full,top-p AB_STEPS="ab" BUDGET_S=30 bash scripts/gpu_run.sh ab > $OUT/ab262_run.log 2>&1
echo "ab262: $(( $(date +%s) - T0 )) s"
OUT=$OUT/fi FI_BIN=$B/MF/ms_bench_cuda BENCH_T=40 bash scripts/gpu_flashinfer.sh --no-baseline --vocab 151936 > $OUT/fi_run.log 2>&1
echo "all: $(( $(date +%s) - T0 )) s"
cd $OUT && cat san-*.log > san.log; cp fi/bench_fi.md fi.md 2>/dev/null
tar czf /tmp/all.tgz . && find . -type f ! -name 'tests-*.log' ! -name bench.txt ! -name san.log ! -name stamps.txt ! -name fi.md -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
