#!/bin/bash
# Sixteenth session's final call. D0 = the session's start (e40eb42's default; the binary built from 70f35c2, whose
# sm_90 SASS equals e40eb42's), M = the merged default (round 21B's MS_CU_K4_RTRIM and round 22D's MS_CU_CARVE_OW on),
# MK = M + round 21C's -DMS_CU_K4_PWOWN -DMS_CU_K3W_B0LATE, MS = M + MS_CU_STAMPS (bench only).
# Tests of M and MK and the sanitizers of M and MK run side by side first, then the benches alone.
B=.devcarry/fin16
mkdir -p $OUT
T0=$(date +%s)
tests() { for t in $($1 --list); do s=$(date +%s); timeout 150 $1 $t 2>&1 | tail -6; echo "   ($t: $(( $(date +%s) - s )) s)"; done; }
( tests $B/M/ms_cuda_tests > $OUT/tests-M.log 2>&1 ) &
( tests $B/MK/ms_cuda_tests > $OUT/tests-MK.log 2>&1 ) &
sleep 2
SANSET=$(sed -n 's/^SANSET="\(.*\)"/\1/p' scripts/gpu_run.sh); RACESET=$(sed -n 's/^RACESET="\(.*\)"/\1/p' scripts/gpu_run.sh)
san() { # variant, tool, tests: gpu_run.sh's run_san with a log of its own
  local x=""; [ $2 = memcheck ] && x="--leak-check full"; local s=$(date +%s)
  MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout 200 compute-sanitizer --tool $2 $x --error-exitcode 9 $B/$1/ms_cuda_tests $3 > $OUT/raw-$1-$2.log 2>&1
  echo "compute-sanitizer $2 on $1: exit $? in $(( $(date +%s) - s )) s" > $OUT/san-$1-$2.log
  grep -E "^ok|^not ok|rows compared|ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|hazard|rror" $OUT/raw-$1-$2.log | head -30 >> $OUT/san-$1-$2.log
}
for v in M MK; do ( san $v memcheck "$SANSET" ) & ( san $v racecheck "$RACESET" ) & done
wait
echo "phase 1: $(( $(date +%s) - T0 )) s"
for v in M MK; do echo "$v tests passed: $(grep -c '1 passed, 0 failed\|^ok ' $OUT/tests-$v.log)"; grep -i 'fail' $OUT/tests-$v.log | grep -v ' 0 failed' | head -5; done
AB_BIN=$B AB_DESC="D0=e40eb42 session start;M=merged default (21B RTRIM, 22D CARVE_OW on);MK=M + 21C PWOWN K3W_B0LATE;MS=M + MS_CU_STAMPS" \
AB_VARIANTS="D0 M MK" AB_B=1,4,16,52,64,128,256 AB_N=2 AB_SETTINGS=full,top-p AB_VARIANTS_DT="D0 M MK" AB_B_DT=1,64,256 AB_N_DT=1 \
STAMPS_B=1,64 AB_STEPS="ab ab:bf16 stamps:MS" BUDGET_S=150 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "all: $(( $(date +%s) - T0 )) s"
cd $OUT && cat san-*.log > san.log
tar czf /tmp/all.tgz . && find . -type f ! -name 'tests-*.log' ! -name bench.txt ! -name san.log ! -name stamps.txt -delete; find . -type d -empty -delete; mv /tmp/all.tgz . ; ls -la
