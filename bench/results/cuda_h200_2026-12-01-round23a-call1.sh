#!/usr/bin/env bash
# round 23A, call 1: racecheck on MK's three tests where the sixteenth session's final call found 32 hazards, then
# the A/B (scripts/gpu_run.sh ab), then stamps. Run from the repository root on the device; logs in $OUT.
set -u
R=.devcarry/r23a
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/race.txt 2>&1
echo "== racecheck on MK: cuda_stats_between_steps cuda_identity_lite_bins cuda_identity_minp_edges ($(date -u +%H:%M:%S))" | tee -a $OUT/race.txt
MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout 90 compute-sanitizer --tool racecheck --error-exitcode 9 \
  $R/MK/ms_cuda_tests cuda_stats_between_steps cuda_identity_lite_bins cuda_identity_minp_edges > /tmp/race.log 2>&1
echo "exit $? in $(( $(date +%s) - T0 )) s" | tee -a $OUT/race.txt
grep -E "^ok|^not ok|passed|failed|rows compared|RACECHECK SUMMARY|ERROR SUMMARY|Race|hazard|rror" /tmp/race.log | head -30 >> $OUT/race.txt
AB_DESC="D=main f982925 default;DS=D with -DMS_CU_STAMPS;MK=D + -DMS_CU_K4_PWOWN -DMS_CU_K3W_B0LATE;MKO=MK + -DMS_CU_OR_FEW (chunk 16384: Go=10, B<=3, K4 warm-up);MKOS=MKO + -DMS_CU_STAMPS;O18=MKO, MS_BENCH_ORFEW=8448 (Go=18);O5=MKO, MS_BENCH_ORFEW=32768 (Go=5);OB16=MKO, MS_BENCH_ORFEW=16384,16 (few chunks to B=16);OW0=MKO, MS_BENCH_ORFEW=16384,3,0 (no forced K4 warm-up at B=2/3)" \
AB_BIN=$R AB_B=1,2,3,4,16,64 AB_N=2 AB_SETTINGS=full AB_VARIANTS="D MK MKO O18 O5 OB16 OW0" \
AB_VARIANTS_DT="D MK MKO" AB_B_DT=1,2,3 STAMPS_B=1 BUDGET_S=$(( ${BUDGET:-200} - ($(date +%s) - T0) )) \
AB_STEPS="ab ab:bf16 stamps:DS stamps:MKOS" bash scripts/gpu_run.sh ab > /tmp/ab1.log 2>&1
# top-p alone at B=1..4 (D, MK, MKO): the few-chunk steps run the one-read instantiations for its rows too
for i in 1 2; do for v in D MK MKO; do
  [ $(( $(date +%s) - T0 )) -lt $(( ${BUDGET:-200} - 15 )) ] || break
  echo "== bench top-p, V=151936, $v (run $i)" >> $OUT/bench.txt
  timeout 30 build-gpu$v/ms_bench_cuda --setting top-p --vocab 151936 --batch 1,2,3,4 --shape both --reps 3 $([ $i = 1 ] || echo --no-baseline) 2>&1 | grep -v "^#" >> $OUT/bench.txt
done; done
tail -3 /tmp/ab1.log >> $OUT/race.txt
echo "total $(( $(date +%s) - T0 )) s" >> $OUT/race.txt
