#!/bin/bash
# Round 37A, call 2 (carried as .devcarry/r37a/call2.sh; run from the repository root with $OUT set; carry .devcarry/r37a).
# D = main's default (.devcarry/s28fin/M); N6 = r37a -DMS_CU_OR_LAZYBIN=3 (=1 with the cut's state set at phase 1's entry);
# DS = the default's stamps bench (.devcarry/s28fin/MS, -DMS_CU_STAMPS): round 20A's K2or counters.
# Steps: the 7 tests on N6; A/B full fp32 V=151936 B=28..128 both shapes 2 runs (D N6, N6 D); peaked B=64 2 more (N6 D,
# D N6); bf16 B=64 both shapes 2 runs; top-p alone B=64 2 runs; DS stamps full B=64 peaked and flat.
B=.devcarry/r37a
W=$OUT; mkdir -p $W; T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/machine.txt 2>&1
echo "start $(date -u +%H:%M:%S)" >> $W/times.txt
for v in D N6 DS; do ls -la $B/$v >> $W/machine.txt; done
for t in cuda_identity_oneread cuda_oneread_model cuda_identity_ring cuda_identity_big_chunks cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_lite; do
  s=$(date +%s); timeout 60 $B/N6/ms_cuda_tests $t > /tmp/t.log 2>&1; echo "== $t rc $? ($(( $(date +%s) - s )) s)" >> $W/tests.log; tail -8 /tmp/t.log >> $W/tests.log
done
echo "tests: $(( $(date +%s) - T0 )) s" >> $W/times.txt
bench() { # tag variant args...
  local tag=$1 v=$2; shift 2
  echo "== $tag $v $* ($(date -u +%H:%M:%S))" >> $W/bench.txt
  timeout 40 $B/$v/ms_bench_cuda "$@" 2>&1 | grep -v "^#" >> $W/bench.txt
}
FULL="--setting full --vocab 151936 --batch 28,32,48,64,96,128 --shape both --reps 3"
for v in D N6; do bench full1 $v $FULL; done
for v in N6 D; do bench full2 $v $FULL --no-baseline; done
PK="--setting full --vocab 151936 --batch 64 --shape peaked --reps 3 --no-baseline"
for v in N6 D D N6; do bench pk $v $PK; done
echo "full: $(( $(date +%s) - T0 )) s" >> $W/times.txt
BF="--setting full --vocab 151936 --batch 64 --shape both --reps 3 --dtype bf16"
for v in D N6; do bench bf1 $v $BF; done
for v in N6 D; do bench bf2 $v $BF --no-baseline; done
TP="--setting top-p --vocab 151936 --batch 64 --shape both --reps 3"
for v in D N6; do bench tp1 $v $TP; done
for v in N6 D; do bench tp2 $v $TP --no-baseline; done
echo "bf16, top-p: $(( $(date +%s) - T0 )) s" >> $W/times.txt
for sh in peaked flat; do
  echo "== stamps DS $sh B=64 ($(date -u +%H:%M:%S))" >> $W/stamps.txt
  MS_BENCH_STAMPS=1 timeout 30 $B/DS/ms_bench_cuda --setting full --vocab 151936 --batch 64 --shape $sh --reps 3 --no-baseline 2>&1 | grep -v "^#" >> $W/stamps.txt
done
echo "all: $(( $(date +%s) - T0 )) s" >> $W/times.txt
