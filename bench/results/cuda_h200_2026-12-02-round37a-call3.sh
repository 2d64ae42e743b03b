#!/bin/bash
# Round 37A, call 3 (PREPARED, NOT RUN; carry as .devcarry/r37a/call3.sh with .devcarry/r37a/{D,N6,N7}; run from the repository
# root with $OUT set). D = main's default (.devcarry/s28fin/M); N6 = r37a -DMS_CU_OR_LAZYBIN=3 (bench); N7 = r37a
# -DMS_CU_OR_LAZYBIN=4 (=3, and a phase-0 warp-step of >= 4 passing tokens enters phase 1 before staging them; bench and
# tests; binaries built from the r37a tree at the commit that adds =4). Steps: the 7 tests on N7; A/B full fp32 V=151936
# B=28..128 both shapes 2 runs (D N6 N7, reversed); peaked B=64 2 more; bf16 and top-p alone B=64 2 runs (D N7, reversed).
B=.devcarry/r37a
W=$OUT; mkdir -p $W; T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/machine.txt 2>&1
echo "start $(date -u +%H:%M:%S)" >> $W/times.txt
for t in cuda_identity_oneread cuda_oneread_model cuda_identity_ring cuda_identity_big_chunks cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_lite; do
  s=$(date +%s); timeout 60 $B/N7/ms_cuda_tests $t > /tmp/t.log 2>&1; echo "== $t rc $? ($(( $(date +%s) - s )) s)" >> $W/tests.log; tail -8 /tmp/t.log >> $W/tests.log
done
echo "tests: $(( $(date +%s) - T0 )) s" >> $W/times.txt
bench() { # tag variant args...
  local tag=$1 v=$2; shift 2
  echo "== $tag $v $* ($(date -u +%H:%M:%S))" >> $W/bench.txt
  timeout 40 $B/$v/ms_bench_cuda "$@" 2>&1 | grep -v "^#" >> $W/bench.txt
}
FULL="--setting full --vocab 151936 --batch 28,32,48,64,96,128 --shape both --reps 3"
for v in D N6 N7; do bench full1 $v $FULL; done
for v in N7 N6 D; do bench full2 $v $FULL --no-baseline; done
PK="--setting full --vocab 151936 --batch 64 --shape peaked --reps 3 --no-baseline"
for v in N7 D N6 N6 D N7; do bench pk $v $PK; done
BF="--setting full --vocab 151936 --batch 64 --shape both --reps 3 --dtype bf16"
for v in D N7; do bench bf1 $v $BF; done
for v in N7 D; do bench bf2 $v $BF --no-baseline; done
TP="--setting top-p --vocab 151936 --batch 64 --shape both --reps 3"
for v in D N7; do bench tp1 $v $TP; done
for v in N7 D; do bench tp2 $v $TP --no-baseline; done
echo "all: $(( $(date +%s) - T0 )) s" >> $W/times.txt
