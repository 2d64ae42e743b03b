#!/bin/bash
# fp16 logits (the bench's new --dtype f16) under the merged default's 2-byte launch rules (ON) against the same binary
# with round 29A's rules set back to the session start's (OFF: MS_BENCH_ORW=40960,40960,0,0: the one-wave bound 40960
# for every dtype, no load test, no ring in 2-byte one-read steps), alternating, two runs; bf16 as a control of the knob.
mkdir -p $OUT; B=.devcarry/f16/F/ms_bench_cuda; T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/machine.txt
for i in 1 2; do for dt in f16 bf16; do for v in OFF ON; do for st in full top-p; do
  [ $(( $(date +%s) - T0 )) -lt 150 ] || break
  bl=32,48,64,112,176; [ $dt = bf16 ] && bl=48,112; [ $st = top-p ] && bl=64,176
  echo "== bench $st, V=151936, $v (ORW $([ $v = OFF ] && echo 40960,40960,0,0 || echo default)), $dt ($(date -u +%H:%M:%S))" >> $OUT/bench.txt
  if [ $v = OFF ]; then E="MS_BENCH_ORW=40960,40960,0,0"; else E="MS_BENCH_X=0"; fi
  timeout 40 env $E $B --setting $st --vocab 151936 --batch $bl --shape both --reps 3 --dtype $dt $([ $i = 1 ] || echo --no-baseline) 2>&1 | grep -v "^#" >> $OUT/bench.txt
done; done; done; done
echo "all: $(( $(date +%s) - T0 )) s"
