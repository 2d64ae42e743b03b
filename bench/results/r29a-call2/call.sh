#!/bin/bash
# r29a call 2: N (-DMS_CU_OR_R29=1: ring in 2-byte one-read steps, the 2-byte one-wave bound 65536, the load test for fp32
# chunks past 40960) against D (main's default), alternating; then 6 CUDA tests on N's runner.
C=.devcarry/r29a
T0=$(date +%s)
left() { echo $(( ${BUDGET:-150} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/machine.txt 2>&1
L=$OUT/tests.log
for t in cuda_identity_big_chunks cuda_identity_oneread cuda_identity_ring cuda_identity_top_p_alone cuda_identity_band cuda_graph_replay_equals_eager; do
  s=$(date +%s); echo "== N $t ($(date -u +%T))" >> $L
  timeout 60 $C/N/ms_cuda_tests $t 2>&1 | tail -8 >> $L
  echo "   ($t: rc ${PIPESTATUS[0]}, $(( $(date +%s) - s )) s)" >> $L
done
F=$OUT/bench.txt
b() { # variant run -- bench args
  local v=$1 r=$2; shift 3
  [ $(left) -gt 8 ] || { echo "== SKIP $v $r $*" >> $F; return; }
  echo "== r$r $v x $* ($(date -u +%T))" >> $F
  timeout 40 $C/$v/ms_bench_cuda "$@" --reps 3 $([ $r = 1 ] || echo --no-baseline) 2>&1 | grep -v '^#' >> $F
}
for r in 1 2; do
  for v in D N; do
    b $v $r -- --vocab 151936 --setting full --dtype bf16 --batch 32,64,96,112,144,176
    b $v $r -- --vocab 151936 --setting top-p --dtype bf16 --batch 64,112,160
    b $v $r -- --vocab 151936 --setting full --dtype f32 --batch 128,160,176
    b $v $r -- --vocab 151936 --setting top-p --dtype f32 --batch 160,176
  done
done
for v in D N; do
  b $v 1 -- --vocab 262144 --setting full --dtype f32 --batch 80,84,100
  b $v 1 -- --vocab 262144 --setting top-p --dtype f32 --batch 84,100
  b $v 1 -- --vocab 262144 --setting full --dtype bf16 --batch 80,128
  b $v 1 -- --vocab 262144 --setting top-p --dtype bf16 --batch 128
done
echo "all done $(( $(date +%s) - T0 )) s" >> $F
