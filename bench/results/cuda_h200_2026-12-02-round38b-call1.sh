#!/bin/bash
# Round 38B, call 1 (carried as .devcarry/r38b/call1.sh; run from the repository root with $OUT set; carry .devcarry/r38b).
# D = main 545d677's default (.devcarry/s30/M's bench); N1 = r38b d37996c -DMS_CU_K2W_BCUT=1 (the warm-up K2's bin cut,
# bench and tests); N0 = the same commit -DMS_CU_K2W_BCUT=2 (the warp-0 tail without the cut: a measurement build, bench).
# Steps: A/B fp32 V=151936 B=1,2,4,16 both shapes five alternating runs (D N1 N0 / N0 N1 D ...); V=262144 B=1, bf16 B=1,
# top-p alone B=1 three alternating runs (D N1); the 10 tests on N1.
B=.devcarry/r38b
W=$OUT; mkdir -p $W; T0=$(date +%s)
left() { echo $(( 380 - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/machine.txt 2>&1
echo "start $(date -u +%H:%M:%S)" >> $W/times.txt
VS="D N1"; [ -x $B/N0/ms_bench_cuda ] && VS="D N1 N0"
RV=$(echo $VS | tr ' ' '\n' | tac | tr '\n' ' ')
for v in $VS; do ls -la $B/$v >> $W/machine.txt; done
bench() { # tag variant args...
  local tag=$1 v=$2; shift 2
  [ $(left) -gt 20 ] || return
  echo "== $tag $v $* ($(date -u +%H:%M:%S))" >> $W/bench.txt
  timeout 40 $B/$v/ms_bench_cuda "$@" 2>&1 | grep -v "^#" >> $W/bench.txt
}
FP="--setting full --vocab 151936 --batch 1,2,4,16 --shape both --reps 3"
for i in 1 2 3 4 5; do
  o=$VS; [ $((i % 2)) = 0 ] && o=$RV
  nb=--no-baseline; [ $i = 1 ] && nb=
  for v in $o; do bench fp$i $v $FP $nb; done
done
echo "fp32: $(( $(date +%s) - T0 )) s" >> $W/times.txt
for i in 1 2 3; do
  o="D N1"; [ $((i % 2)) = 0 ] && o="N1 D"
  nb=--no-baseline; [ $i = 1 ] && nb=
  for v in $o; do bench v262k$i $v --setting full --vocab 262144 --batch 1 --shape both --reps 3 $nb; done
  for v in $o; do bench bf$i $v --setting full --vocab 151936 --batch 1 --shape both --reps 3 --dtype bf16 $nb; done
  for v in $o; do bench tp$i $v --setting top-p --vocab 151936 --batch 1 --shape both --reps 3 $nb; done
done
echo "benches: $(( $(date +%s) - T0 )) s" >> $W/times.txt
for t in cuda_identity_lite cuda_identity_lite_bins cuda_identity_minp_edges cuda_identity_matrix cuda_identity_top_p_alone cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_many_steps cuda_identity_band cuda_identity_band_edges; do
  l=$(left); [ $l -gt 15 ] || { echo "== $t not run (budget)" >> $W/tests.log; continue; }
  s=$(date +%s); timeout $(( l < 60 ? l : 60 )) $B/N1/ms_cuda_tests $t > /tmp/t.log 2>&1; echo "== $t rc $? ($(( $(date +%s) - s )) s)" >> $W/tests.log; tail -n 8 /tmp/t.log >> $W/tests.log
done
echo "all: $(( $(date +%s) - T0 )) s, end $(date -u +%H:%M:%S)" >> $W/times.txt
