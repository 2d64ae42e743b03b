#!/bin/bash
# Round 18C, for a later call (not run in round 18C): validate VAL (default W = -DMS_CU_LITE_EARLY -DMS_CU_K1_EARLY;
# K = -DMS_CU_K1_EARLY alone) and A/B D V W K. Writes three files only (the device tool returns a limited number):
# tests.txt, san.txt, bench.txt. Run: TOTAL_S=230 VAL=W bash .devcarry/r18c/validate.sh (timeout_s ~250).
set -u
R=.devcarry/r18c; VAL=${VAL:-W}
T0=$(date +%s); TOTAL=${TOTAL_S:-230}
left() { echo $(( TOTAL - ($(date +%s) - T0) )); }
TB=$R/$VAL/ms_cuda_tests
{ echo "start $(date -u +%Y-%m-%dT%H:%M:%SZ), tests on $VAL"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  for t in $($TB --list); do
    [ $(left) -gt 100 ] || { echo "   $t: no time left"; continue; }
    s=$(date +%s)
    timeout $(( $(left) - 90 )) $TB $t 2>&1 | tail -8
    echo "   ($t: rc ${PIPESTATUS[0]}, $(( $(date +%s) - s )) s)"
  done
  echo "tests done at $(( $(date +%s) - T0 )) s"; } > $OUT/tests.txt 2>&1
grep -cE "rc 0," $OUT/tests.txt; grep -E "rc [1-9]|not ok|no time" $OUT/tests.txt
SANSET="cuda_bad_inputs cuda_identity_minp_edges cuda_identity_lite_bins cuda_identity_lite cuda_graph_replay_equals_eager cuda_identity_band cuda_identity_band_edges cuda_identity_top_p_alone cuda_identity_k2_stage cuda_identity_oneread cuda_identity_ring cuda_stats_between_steps"
tl=$(( $(left) - 40 )); [ $tl -gt 150 ] && tl=150
s=$(date +%s)
san() { local n=$1 tool=$2; shift 2
  { MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout $tl compute-sanitizer --tool $tool $([ $tool = memcheck ] && echo --leak-check full) \
      --error-exitcode 9 $TB "$@" >/tmp/san_$n.txt 2>&1; echo "$n ($tool $*): exit $? in $(( $(date +%s) - s )) s" >>/tmp/san_$n.txt; } & }
san mem memcheck $SANSET
san r1 racecheck cuda_identity_lite_bins cuda_identity_minp_edges cuda_identity_k2_stage
san r2 racecheck cuda_stats_between_steps
san r3 racecheck cuda_graph_replay_equals_eager cuda_identity_ring
san r4 racecheck cuda_identity_band cuda_identity_band_edges cuda_identity_oneread
wait
for n in mem r1 r2 r3 r4; do echo "== $n"; grep -E "^ok|^not ok|rows compared|ERROR SUMMARY|RACECHECK SUMMARY|LEAK|Invalid|Race|hazard|rror|exit" /tmp/san_$n.txt | head -30; done > $OUT/san.txt
grep -E "exit|SUMMARY" $OUT/san.txt
for i in 1 2; do for st in full top-p; do for v in D V W K; do
  [ $(left) -gt 4 ] || break
  [ -x $R/$v/ms_bench_cuda ] || continue
  echo "== bench $st $v run $i ($(date -u +%H:%M:%S))"
  timeout $(( $(left) - 2 )) $R/$v/ms_bench_cuda --setting $st --vocab 151936 --batch 1,4,16,32 --shape both --reps 3 $([ $i = 1 ] || echo --no-baseline) 2>&1 | grep -v '^#'
done; done; done > $OUT/bench.txt 2>&1
echo "call done in $(( $(date +%s) - T0 )) s" | tee -a $OUT/bench.txt
