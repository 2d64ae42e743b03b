#!/bin/bash
# r29a call 1: the one-read step's G at run time (MS_BENCH_ORG) on D's binary (no build), alternating, + DS stamps.
C=.devcarry/r29a
D=$C/D/ms_bench_cuda; DS=$C/DS/ms_bench_cuda
T0=$(date +%s)
left() { echo $(( ${BUDGET:-140} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/machine.txt 2>&1
F=$OUT/bench.txt
b() { # label env... -- bench args
  local lab=$1; shift; local env=()
  while [ "$1" != "--" ]; do env+=("$1"); shift; done; shift
  [ $(left) -gt 10 ] || { echo "== SKIP $lab $*" >> $F; return; }
  echo "== $lab [${env[*]}] $* ($(date -u +%T))" >> $F
  env "${env[@]}" timeout 40 $D "$@" --vocab 151936 --reps 3 2>&1 | grep -v '^#' >> $F
}
stamps() {
S=$OUT/stamps.txt
s() { # label env... -- args
  local lab=$1; shift; local env=()
  while [ "$1" != "--" ]; do env+=("$1"); shift; done; shift
  [ $(left) -gt 6 ] || { echo "== SKIP $lab" >> $S; return; }
  echo "== $lab [${env[*]}] $* ($(date -u +%T))" >> $S
  env "${env[@]}" MS_BENCH_STAMPS=1 timeout 25 $DS "$@" --vocab 151936 --reps 3 --no-baseline 2>&1 | grep -v '^#' >> $S
}
for o in 0 3; do s "O$o topp-f32 flat 144" MS_BENCH_ORG=$o -- --setting top-p --dtype f32 --shape flat --batch 144; done
for o in 0 3; do s "O$o full-bf16 peaked 160" MS_BENCH_ORG=$o -- --setting full --dtype bf16 --shape peaked --batch 160; done
for o in 0 5; do s "O$o full-bf16 peaked 112" MS_BENCH_ORG=$o -- --setting full --dtype bf16 --shape peaked --batch 112; done
for o in 0 3; do s "O$o topp-f32 flat 176" MS_BENCH_ORG=$o -- --setting top-p --dtype f32 --shape flat --batch 176; done
}
for r in 1 2 X 3; do
  if [ $r = X ]; then stamps; continue; fi
  nb=$([ $r = 1 ] || echo --no-baseline)
  for o in 0 3; do b "r$r O$o topp-f32" MS_BENCH_ORG=$o -- --setting top-p --dtype f32 --batch 133,144,160,176 $nb; done
  b "r$r O0 full-bf16" MS_BENCH_ORG=0 -- --setting full --dtype bf16 --batch 112,128,144,160,176 $nb
  b "r$r O3 full-bf16" MS_BENCH_ORG=3 -- --setting full --dtype bf16 --batch 144,160,176 $nb
  b "r$r O5 full-bf16" MS_BENCH_ORG=5 -- --setting full --dtype bf16 --batch 112,128 $nb
  if [ $r -le 2 ]; then
    for o in 0 3; do b "r$r O$o full-f32" MS_BENCH_ORG=$o -- --setting full --dtype f32 --batch 144,160,176 $nb; done
    b "r$r O0R full-bf16" MS_BENCH_ORG=0 MS_BENCH_RING=1 -- --setting full --dtype bf16 --batch 64,112,128 $nb
    b "r$r O3R full-bf16" MS_BENCH_ORG=3 MS_BENCH_RING=1 -- --setting full --dtype bf16 --batch 144,160,176 $nb
  fi
  if [ $r = 1 ]; then
    for o in 0 3; do b "r$r O$o topp-bf16" MS_BENCH_ORG=$o -- --setting top-p --dtype bf16 --batch 144,160,176 $nb; done
    b "r$r O0 full-bf16-64" MS_BENCH_ORG=0 -- --setting full --dtype bf16 --batch 64 $nb
  fi
done
echo "bench done $(( $(date +%s) - T0 )) s" >> $F
echo "all done $(( $(date +%s) - T0 )) s" >> $F
