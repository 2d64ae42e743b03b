#!/bin/bash
# Thirtieth session, lead's call 3 (carried as .devcarry/s30/call3.sh; carry .devcarry/s30/M/ms_bench_cuda and the script).
# Where the step goes today, M = main 545d677's default (the merged tree's cubin is byte-identical): ncu kernel times
# (gpu__time_duration.sum, kernels serialised by ncu, steady graph replays: 15 launches after the first 200) at V=151936:
# top-p alone B=1 / 16 / 64 / 256 flat and peaked; the full setting B=1 and 64 flat and peaked. Raw ncu lines kept.
mkdir -p $OUT; T0=$(date +%s)
echo "start $(date -u +%H:%M:%S)" > $OUT/times.txt
mkdir -p build-gpuM && cp .devcarry/s30/M/ms_bench_cuda build-gpuM/
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/machine.txt 2>&1
for cfg in top-p:flat:1 top-p:peaked:1 top-p:flat:16 top-p:peaked:16 top-p:flat:64 top-p:peaked:64 top-p:flat:256 top-p:peaked:256 full:flat:1 full:peaked:1 full:flat:64 full:peaked:64; do
  IFS=: read st sh b <<< "$cfg"
  [ $(( $(date +%s) - T0 )) -lt 300 ] || break
  echo "== ncu $st $sh B=$b ($(date -u +%H:%M:%S))" >> $OUT/ncu.txt
  timeout 60 ncu --clock-control none -k regex:ms_cu_k --launch-skip 200 --launch-count 15 --metrics gpu__time_duration.sum \
    build-gpuM/ms_bench_cuda --batch $b --vocab 151936 --shape $sh --setting $st --no-baseline --reps 3 > /tmp/ncu.log 2>&1
  echo "   exit $?" >> $OUT/ncu.txt
  grep -E "^  [a-z_0-9]+.*Context|gpu__time_duration" /tmp/ncu.log >> $OUT/ncu.txt
done
echo "all: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
head -c 3000 /tmp/ncu.log > $OUT/ncu_last_raw.txt
ls -la $OUT
