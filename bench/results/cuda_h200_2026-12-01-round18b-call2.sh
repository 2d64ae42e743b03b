#!/bin/bash
# round 18B, call 2: benches first (alone on the GPU), then the tests and the sanitizers side by side
set -u
B=.devcarry/r18b
DESC="D=main 35cd68b;V24=r18b c06d5a6 -DMS_CU_ROWFLAGS -DMS_CU_NO_RF12 (K2->K4 counters only);V24S=V24 + -DMS_CU_STAMPS;DS=35cd68b code + -DMS_CU_STAMPS"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D V24" AB_B=1,4,16,32,64,128,256 AB_N=2 AB_SETTINGS=full AB_B_DT=16,64 AB_N_DT=2 \
  STAMPS_B=1,4,64 AB_STEPS="ab ab:bf16 stamps:V24S stamps:DS" BUDGET_S=70 bash scripts/gpu_run.sh ab
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D V24" AB_B=1,64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=30 bash scripts/gpu_run.sh ab
T=build-gpuV24/tests/cuda/ms_cuda_tests
SANSET="cuda_bad_inputs cuda_identity_minp_edges cuda_identity_lite_bins cuda_identity_lite cuda_graph_replay_equals_eager cuda_identity_band cuda_identity_band_edges cuda_identity_top_p_alone cuda_identity_k2_stage cuda_identity_oneread cuda_identity_ring cuda_stats_between_steps"
RACESET="cuda_stats_between_steps cuda_graph_replay_equals_eager cuda_identity_lite_bins cuda_identity_minp_edges cuda_identity_band cuda_identity_band_edges cuda_identity_k2_stage cuda_identity_oneread cuda_identity_ring"
echo "== tests and sanitizers on V24 ($(date -u +%H:%M:%S))"
( for t in $($T --list); do s=$(date +%s); timeout 150 $T $t 2>&1 | tail -8; echo "   ($t: $(( $(date +%s) - s )) s, exit ${PIPESTATUS[0]})"; done > $OUT/tests.log 2>&1 ) &
( s=$(date +%s); MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout 40 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $T $SANSET > /tmp/mc.log 2>&1
  echo "memcheck exit $? in $(( $(date +%s) - s )) s" > $OUT/san.log
  grep -E "^ok|^not ok|rows compared|ERROR SUMMARY|Invalid|rror" /tmp/mc.log | head -30 >> $OUT/san.log
  s=$(date +%s); MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 $T $RACESET > /tmp/rc.log 2>&1
  echo "racecheck exit $? in $(( $(date +%s) - s )) s" >> $OUT/san.log
  grep -E "^ok|^not ok|rows compared|RACECHECK SUMMARY|ERROR SUMMARY|Race|hazard|rror" /tmp/rc.log | head -30 >> $OUT/san.log ) &
wait
cat $OUT/tests.log $OUT/san.log
echo "== done ($(date -u +%H:%M:%S))"
