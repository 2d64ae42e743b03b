#!/bin/bash
# Fourteenth session: where the one-read path starts to pay now (rounds 18D, 19B on). M2 = main 2ba1679 + the bench's
# MS_BENCH_ORMIN knob (its kernels' PTX equal M's). ORMIN=c: the path from chunks of c tokens alone (no L2 rule).
b=.devcarry/or14/M2/ms_bench_cuda; chmod +x $b
for i in 1 2; do
  for o in none 8192 4096; do
    echo "== full run $i ORMIN=$o"
    if [ $o = none ]; then timeout 60 $b --setting full --vocab 151936 --batch 16,24,32,40,48,64 --shape both --reps 3 $([ $i = 1 ] || echo --no-baseline)
    else MS_BENCH_ORMIN=$o timeout 60 $b --setting full --vocab 151936 --batch 16,24,32,40,48,64 --shape both --reps 3 $([ $i = 1 ] || echo --no-baseline); fi
  done
done > $OUT/or.txt 2>&1
for o in none 8192 4096; do
  echo "== top-p ORMIN=$o"
  if [ $o = none ]; then timeout 60 $b --setting top-p --vocab 151936 --batch 16,32,48 --shape both --reps 3 --no-baseline
  else MS_BENCH_ORMIN=$o timeout 60 $b --setting top-p --vocab 151936 --batch 16,32,48 --shape both --reps 3 --no-baseline; fi
done >> $OUT/or.txt 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv >> $OUT/or.txt
