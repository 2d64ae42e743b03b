#!/usr/bin/env bash
# round 17C, call 1: A (-DMS_CU_NO_K0, 241b15a) against D (main d4181c2, the lead's build-d0); T = A with K4's zeroing
# off (throwaway: the new test must fail there). The ab step with MS_BENCH_OWNWS=1 (the resource's own workspace: A
# runs no K0; D runs K0 either way). Then all CUDA tests on A, memcheck and racecheck on A (quick sets, and the new
# test), --chain and stamps (AS = A -DMS_CU_STAMPS, with and without the own workspace).
set -uo pipefail
C=.devcarry/r17c
RO=${OUT:-/tmp/ro}; mkdir -p $RO
O=/tmp/o1; mkdir -p $O
T0=$(date +%s)
CALL_S=${CALL_S:-300}
el() { echo "== $* (t=$(( $(date +%s) - T0 )) s, $(date -u +%H:%M:%S))"; }
left() { echo $(( CALL_S - ($(date +%s) - T0) )); }
export OUT=$O
DESC="D=main d4181c2 (lead's build-d0);A=r17c 241b15a -DMS_CU_NO_K0;T=A with K4's zeroing off (throwaway);AS=A -DMS_CU_STAMPS"
el "T (throwaway, K4 leaves the stats dirty): the new test"
AB_BIN=$C AB_STEPS="tests:T" AB_TESTS="cuda_stats_between_steps" AB_DESC="$DESC" BUDGET_S=40 bash scripts/gpu_run.sh ab >/dev/null 2>&1
cat $O/build.log $O/tests.log; rm -f $O/tests.log
el "ab D A, own workspace (MS_BENCH_OWNWS=1)"
MS_BENCH_OWNWS=1 AB_BIN=$C AB_VARIANTS="D A" AB_B=1,4,16,64,256 AB_N=2 AB_SETTINGS=full,top-p AB_STEPS="ab" AB_DESC="$DESC" BUDGET_S=75 bash scripts/gpu_run.sh ab >/dev/null 2>&1
cat $O/bench.txt
el "A with the caller's workspace (K0 runs), full, once"
timeout 20 build-gpuA/ms_bench_cuda --setting full --vocab 151936 --batch 1,4,16,64,256 --shape both --reps 3 --no-baseline 2>&1 | grep -v "^#"
el "all CUDA tests on A"
AB_BIN=$C AB_STEPS="tests:A" AB_DESC="$DESC" BUDGET_S=$(( $(left) - 75 )) bash scripts/gpu_run.sh ab >/dev/null 2>&1
cat $O/tests.log
el "memcheck and racecheck on A (quick sets)"
AB_BIN=$C AB_STEPS="san:A" AB_DESC="$DESC" BUDGET_S=$(( $(left) - 25 )) bash scripts/gpu_run.sh ab >/dev/null 2>&1
cat $O/san.log
el "memcheck on A: the new test (quick)"
cd build-gpuA/tests/cuda && MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout $(( $(left) > 40 ? 30 : 10 )) compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 ./ms_cuda_tests cuda_stats_between_steps 2>&1 | grep -E "^ok|^not ok|rows compared|ERROR SUMMARY|Invalid|rror" | head; echo "exit ${PIPESTATUS[0]}"; cd - >/dev/null
el "chain and stamps"
timeout 20 build-gpuA/ms_bench_cuda --setting full --vocab 151936 --batch 1,4,64 --shape flat --reps 3 --no-baseline --chain 2>&1 | grep -v "^#"
for ow in 1 0; do
  for shape in flat peaked; do
    [ $(left) -gt 8 ] || break
    echo "-- stamps AS, own workspace=$ow, $shape"
    if [ $ow = 1 ]; then export MS_BENCH_OWNWS=1; else unset MS_BENCH_OWNWS; fi
    MS_BENCH_STAMPS=1 timeout 15 build-gpuAS/ms_bench_cuda --setting full --vocab 151936 --batch 1,64 --shape $shape --reps 3 --no-baseline 2>&1 | grep -v "^#"
  done
done
unset MS_BENCH_OWNWS
if [ $(left) -gt 30 ]; then
  el "racecheck on A: the new test (quick)"
  cd build-gpuA/tests/cuda && MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout $(( $(left) - 5 )) compute-sanitizer --tool racecheck --error-exitcode 9 ./ms_cuda_tests cuda_stats_between_steps 2>&1 | grep -E "^ok|^not ok|rows compared|RACECHECK SUMMARY|ERROR SUMMARY|hazard|rror" | head; echo "exit ${PIPESTATUS[0]}"; cd - >/dev/null
fi
el "end"
