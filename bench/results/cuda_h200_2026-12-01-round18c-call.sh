#!/bin/bash
# Round 18C, the one device call: all 16 CUDA tests on V, then memcheck (quick set) and racecheck (quick set, in three
# parts) on V as three parallel processes (each its own context; quick mode raises K2's spin bound to 100 ms),
# bounded to leave the A/B its time, then the A/B: D V W alternating, full setting fp32 V=151936, B=1,4,16,32, both
# shapes, two runs each (the first checks its tokens against the CPU reference).
set -u
R=.devcarry/r18c
T0=$(date +%s); TOTAL=${TOTAL_S:-198}
left() { echo $(( TOTAL - ($(date +%s) - T0) )); }
echo "start $(date -u +%Y-%m-%dT%H:%M:%SZ)" | tee $OUT/machine.txt
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee -a $OUT/machine.txt
# SASS and resource usage of K1<false> and K2<false,false> (CPU only, beside the tests, which are not timed)
( for v in D V W; do
    [ -x $R/$v/ms_bench_cuda ] || continue
    cuobjdump -res-usage $R/$v/ms_bench_cuda > $OUT/res_$v.txt 2>&1
    cuobjdump -sass $R/$v/ms_bench_cuda > /tmp/sass_$v.txt 2>&1
    for f in _Z8ms_cu_k2ILb0ELb0EEv10ms_cu_args _Z8ms_cu_k1ILb0EEv10ms_cu_args; do
      awk -v F="$f" '/Function : /{on = ($3 == F)} on' /tmp/sass_$v.txt > $OUT/sass_${v}_$f.txt
    done
  done; gzip $OUT/sass_*.txt ) &
TB=$R/V/ms_cuda_tests
for t in $($TB --list); do
  [ $(left) -gt 70 ] || { echo "   $t: no time left" | tee -a $OUT/tests.log; continue; }
  s=$(date +%s)
  timeout $(( $(left) - 60 )) $TB $t 2>&1 | tail -8 | tee -a $OUT/tests.log
  echo "   ($t: rc ${PIPESTATUS[0]}, $(( $(date +%s) - s )) s)" | tee -a $OUT/tests.log
done
echo "tests done at $(( $(date +%s) - T0 )) s" | tee -a $OUT/tests.log
SANSET="cuda_bad_inputs cuda_identity_minp_edges cuda_identity_lite_bins cuda_identity_lite cuda_graph_replay_equals_eager cuda_identity_band cuda_identity_band_edges cuda_identity_top_p_alone cuda_identity_k2_stage cuda_identity_oneread cuda_identity_ring cuda_stats_between_steps"
RACE1="cuda_identity_lite_bins cuda_identity_minp_edges cuda_identity_k2_stage"
RACE2="cuda_stats_between_steps cuda_graph_replay_equals_eager cuda_identity_ring"
RACE3="cuda_identity_band cuda_identity_band_edges cuda_identity_oneread"
tl=$(( $(left) - 40 )); [ $tl -gt 150 ] && tl=150
echo "sanitizers: timeout $tl s" | tee $OUT/san.log
s=$(date +%s)
{ MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout $tl compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $TB $SANSET >$OUT/san_mem.txt 2>&1; echo "memcheck exit $? in $(( $(date +%s) - s )) s" >>$OUT/san_mem.txt; } &
{ MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout $tl compute-sanitizer --tool racecheck --error-exitcode 9 $TB $RACE1 >$OUT/san_race1.txt 2>&1; echo "racecheck1 exit $? in $(( $(date +%s) - s )) s" >>$OUT/san_race1.txt; } &
{ MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout $tl compute-sanitizer --tool racecheck --error-exitcode 9 $TB $RACE2 >$OUT/san_race2.txt 2>&1; echo "racecheck2 exit $? in $(( $(date +%s) - s )) s" >>$OUT/san_race2.txt; } &
{ MS_CUDA_TEST_QUICK=1 MS_CUDA_TEST_THREADS=1 timeout $tl compute-sanitizer --tool racecheck --error-exitcode 9 $TB $RACE3 >$OUT/san_race3.txt 2>&1; echo "racecheck3 exit $? in $(( $(date +%s) - s )) s" >>$OUT/san_race3.txt; } &
wait
for f in san_mem san_race1 san_race2 san_race3; do echo "== $f"; grep -E "^ok|^not ok|rows compared|ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|hazard|rror|exit" $OUT/$f.txt | head -30; done | tee -a $OUT/san.log
echo "sanitizers done at $(( $(date +%s) - T0 )) s" | tee -a $OUT/san.log
for i in 1 2; do for v in D V W; do
  [ $(left) -gt 8 ] || break
  [ -x $R/$v/ms_bench_cuda ] || continue
  echo "== bench full $v run $i ($(date -u +%H:%M:%S))"
  timeout $(( $(left) - 2 )) $R/$v/ms_bench_cuda --setting full --vocab 151936 --batch 1,4,16,32 --shape both --reps 3 $([ $i = 1 ] || echo --no-baseline) 2>&1 | grep -v '^#'
done; done | tee $OUT/bench.txt
echo "call done in $(( $(date +%s) - T0 )) s" | tee -a $OUT/bench.txt
