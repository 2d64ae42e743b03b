#!/bin/bash
# Round 38B, call 2 (carried as .devcarry/r38b/call2.sh; carry .devcarry/r38b): call 1's B >= 2 loss of N1 again, N1 first /
# last this time. D, N1, N0 as in call 1. fp32 V=151936 B=1,4,16 both shapes, five runs: N1 D N0 / N0 D N1 / ...
B=.devcarry/r38b
W=$OUT; mkdir -p $W; T0=$(date +%s)
left() { echo $(( 150 - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/machine.txt 2>&1
echo "start $(date -u +%H:%M:%S)" >> $W/times.txt
bench() { local tag=$1 v=$2; shift 2; [ $(left) -gt 20 ] || return
  echo "== $tag $v $* ($(date -u +%H:%M:%S))" >> $W/bench.txt
  timeout 40 $B/$v/ms_bench_cuda "$@" 2>&1 | grep -v "^#" >> $W/bench.txt; }
FP="--setting full --vocab 151936 --batch 1,4,16 --shape both --reps 3"
for i in 1 2 3 4 5; do
  o="N1 D N0"; [ $((i % 2)) = 0 ] && o="N0 D N1"
  nb=--no-baseline; [ $i = 1 ] && nb=
  for v in $o; do bench fp$i $v $FP $nb; done
done
echo "all: $(( $(date +%s) - T0 )) s, end $(date -u +%H:%M:%S)" >> $W/times.txt
