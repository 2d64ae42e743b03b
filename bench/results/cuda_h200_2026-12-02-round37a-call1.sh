#!/bin/bash
# Round 37A, call 1 (carried as .devcarry/r37a/call1.sh; run from the repository root with $OUT set; carry .devcarry/r37a).
# D = main's default (.devcarry/s28fin/M: kernels as main b20f0da); NB = main b20f0da + -DMS_CU_OR_SB_NOTK (no online top-k'
# cut: a measurement build); N5 = r37a -DMS_CU_OR_LAZYBIN=1 (round 35A's =3 split in the ring-less K2or, phase 0 counts no
# bins); N5B = r37a -DMS_CU_OR_LAZYBIN=2 (the split, phase 0 counts the bins). Bench only (no tests in this call).
# Steps: A/B full fp32 V=151936 B=28..128 both shapes, 2 runs (order D NB N5 N5B, then reversed); peaked B=64 2 more runs
# (orders N5 N5B D NB, NB D N5B N5); bf16 B=64 both shapes 2 runs; top-p alone B=64 both shapes 2 runs.
B=.devcarry/r37a
W=$OUT; mkdir -p $W; T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/machine.txt 2>&1
echo "start $(date -u +%H:%M:%S)" >> $W/times.txt
for v in D NB N5 N5B; do ls -la $B/$v >> $W/machine.txt; done
bench() { # tag variant args...
  local tag=$1 v=$2; shift 2
  echo "== $tag $v $* ($(date -u +%H:%M:%S))" >> $W/bench.txt
  timeout 40 $B/$v/ms_bench_cuda "$@" 2>&1 | grep -v "^#" >> $W/bench.txt
}
FULL="--setting full --vocab 151936 --batch 28,32,48,64,96,128 --shape both --reps 3"
for v in D NB N5 N5B; do bench full1 $v $FULL; done
echo "run1: $(( $(date +%s) - T0 )) s" >> $W/times.txt
for v in N5B N5 NB D; do bench full2 $v $FULL --no-baseline; done
echo "run2: $(( $(date +%s) - T0 )) s" >> $W/times.txt
PK="--setting full --vocab 151936 --batch 64 --shape peaked --reps 3 --no-baseline"
for v in N5 N5B D NB; do bench pk3 $v $PK; done
for v in NB D N5B N5; do bench pk4 $v $PK; done
echo "pk: $(( $(date +%s) - T0 )) s" >> $W/times.txt
BF="--setting full --vocab 151936 --batch 64 --shape both --reps 3 --dtype bf16"
for v in D N5 N5B; do bench bf1 $v $BF; done
for v in N5B N5 D; do bench bf2 $v $BF --no-baseline; done
echo "bf16: $(( $(date +%s) - T0 )) s" >> $W/times.txt
TP="--setting top-p --vocab 151936 --batch 64 --shape both --reps 3"
for v in D N5 N5B; do bench tp1 $v $TP; done
for v in N5B N5 D; do bench tp2 $v $TP --no-baseline; done
echo "all: $(( $(date +%s) - T0 )) s" >> $W/times.txt
