#!/usr/bin/env bash
# round 23A, call 2: N (the branch's new default: MS_CU_K4_PWOWN, MS_CU_K3W_B0LATE on) against D, then all 16 CUDA tests
# on N's binary, the one-read few-chunk shape at 37 / 74 chunks (MKO's bench, B=1..3), then racecheck on N where time is left.
set -u
R=.devcarry/r23a
T0=$(date +%s)
B=${BUDGET:-165}
left() { echo $(( B - ($(date +%s) - T0) )); }
AB_DESC="D=main f982925 default;N=r23a 248c828 default (round 21C's own warm-up kernel on);MKO=r23a 25a58ef + -DMS_CU_K4_PWOWN -DMS_CU_K3W_B0LATE -DMS_CU_OR_FEW;O37=MKO, MS_BENCH_ORMIN=0 MS_BENCH_ORFEW=4112 (Go=37);O74=MKO, MS_BENCH_ORMIN=0 MS_BENCH_ORFEW=2056 (Go=74)" \
AB_BIN=$R AB_B=1,2,3,4,16,64 AB_N=2 AB_SETTINGS=full AB_VARIANTS="D N" AB_VARIANTS_DT="D N" AB_B_DT=1,2 \
BUDGET_S=$(( B - 5 )) AB_STEPS="ab ab:bf16 tests:N" bash scripts/gpu_run.sh ab > /tmp/ab2.log 2>&1
for i in 1 2; do for v in D O37 O74; do
  [ $(left) -gt 10 ] || break
  echo "== bench full, V=151936, $v (run $i) ($(date -u +%H:%M:%S))" >> $OUT/bench.txt
  timeout 20 build-gpu$v/ms_bench_cuda --setting full --vocab 151936 --batch 1,2,3 --shape both --reps 3 $([ $i = 1 ] || echo --no-baseline) 2>&1 | grep -v "^#" >> $OUT/bench.txt
done; done
tl=$(( $(left) - 3 ))
if [ $tl -gt 20 ]; then
  echo "== racecheck on N: the rest of scripts/gpu_run.sh's RACESET (timeout $tl s) ($(date -u +%H:%M:%S))" >> $OUT/race.txt
  MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout $tl compute-sanitizer --tool racecheck --error-exitcode 9 build-gpuN/tests/cuda/ms_cuda_tests \
    cuda_identity_oneread cuda_graph_replay_equals_eager cuda_identity_k2_stage cuda_identity_band cuda_identity_band_edges cuda_identity_ring \
    cuda_stats_between_steps cuda_identity_lite_bins cuda_identity_minp_edges > /tmp/race.log 2>&1
  echo "exit $?" >> $OUT/race.txt
  grep -E "^ok|^not ok|passed|failed|rows compared|RACECHECK SUMMARY|Race|hazard|rror" /tmp/race.log | head -40 >> $OUT/race.txt
fi
tail -2 /tmp/ab2.log >> $OUT/race.txt
echo "total $(( $(date +%s) - T0 )) s" >> $OUT/race.txt
