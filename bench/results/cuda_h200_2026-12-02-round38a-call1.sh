#!/bin/bash
# Round 38A, call 1 (carried as .devcarry/r38a/call1.sh; run from the repository root with $OUT set; carry .devcarry/r38a).
# D = main 545d677's default (.devcarry/s30/M); N = r38a -DMS_CU_OR_TKSH=1 (the cut's ry/osc/tk out of K2or's registers).
# Steps: the 8 tests on N; A/B full fp32 V=151936 B=28..128 both shapes 2 runs (D N, N D); peaked B=64 2 more (N D,
# D N); bf16 B=64 both shapes 2 runs; top-p alone B=64 2 runs.
B=.devcarry/r38a
W=$OUT; mkdir -p $W; T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/machine.txt 2>&1
echo "start $(date -u +%H:%M:%S)" >> $W/times.txt
for v in D N; do ls -la $B/$v >> $W/machine.txt; done
for t in cuda_identity_oneread cuda_oneread_model cuda_identity_ring cuda_identity_big_chunks cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_lite cuda_identity_smallb; do
  s=$(date +%s); timeout 60 $B/N/ms_cuda_tests $t > /tmp/t.log 2>&1; echo "== $t rc $? ($(( $(date +%s) - s )) s)" >> $W/tests.log; tail -8 /tmp/t.log >> $W/tests.log
done
echo "tests: $(( $(date +%s) - T0 )) s" >> $W/times.txt
bench() { # tag variant args...
  local tag=$1 v=$2; shift 2
  echo "== $tag $v $* ($(date -u +%H:%M:%S))" >> $W/bench.txt
  timeout 40 $B/$v/ms_bench_cuda "$@" 2>&1 | grep -v "^#" >> $W/bench.txt
}
FULL="--setting full --vocab 151936 --batch 28,32,48,64,96,128 --shape both --reps 3"
for v in D N; do bench full1 $v $FULL; done
for v in N D; do bench full2 $v $FULL --no-baseline; done
PK="--setting full --vocab 151936 --batch 64 --shape peaked --reps 3 --no-baseline"
for v in N D D N; do bench pk $v $PK; done
echo "full: $(( $(date +%s) - T0 )) s" >> $W/times.txt
BF="--setting full --vocab 151936 --batch 64 --shape both --reps 3 --dtype bf16"
for v in D N; do bench bf1 $v $BF; done
for v in N D; do bench bf2 $v $BF --no-baseline; done
TP="--setting top-p --vocab 151936 --batch 64 --shape both --reps 3"
for v in D N; do bench tp1 $v $TP; done
for v in N D; do bench tp2 $v $TP --no-baseline; done
echo "all: $(( $(date +%s) - T0 )) s" >> $W/times.txt
