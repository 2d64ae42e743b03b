#!/bin/bash
# Thirtieth session, lead's call 2 (carried as .devcarry/s30/call2.sh; carry .devcarry/s30/M and the script).
# (1) check:M: every CUDA test, memcheck and racecheck side by side on M = main 545d677's default, whose sm_90 cubin the
#     session's merged tree (rounds 38A and 38B's switches off) reproduces byte for byte: the final default's validation.
# (2) Where top-p alone's step goes today: ncu kernel times (gpu__time_duration, kernels serialised, steady graph
#     replays) at V=151936, B=1 / 16 / 64 / 256, flat and peaked; the full setting at B=64 beside it.
mkdir -p $OUT; T0=$(date +%s)
echo "start $(date -u +%H:%M:%S)" > $OUT/times.txt
AB_BIN=.devcarry/s30 AB_DESC="M=545d677 default" AB_STEPS="check:M" BUDGET_S=200 bash scripts/gpu_run.sh ab > $OUT/check_run.log 2>&1
echo "check: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
for cfg in top-p:flat:1 top-p:peaked:1 top-p:flat:16 top-p:peaked:16 top-p:flat:64 top-p:peaked:64 top-p:flat:256 top-p:peaked:256 full:flat:64 full:peaked:64; do
  IFS=: read st sh b <<< "$cfg"
  [ $(( $(date +%s) - T0 )) -lt 420 ] || break
  echo "== ncu $st $sh B=$b ($(date -u +%H:%M:%S))" >> $OUT/ncu.txt
  timeout 60 ncu --clock-control none -k regex:ms_cu_k --launch-skip 200 --launch-count 15 --metrics gpu__time_duration.sum \
    build-gpuM/ms_bench_cuda --batch $b --vocab 151936 --shape $sh --setting $st --no-baseline --reps 3 > /tmp/ncu.log 2>&1
  grep -E "ms_cu_k|gpu__time_duration" /tmp/ncu.log | paste - - | awk '{print $1, $(NF)}' >> $OUT/ncu.txt
done
echo "all: $(( $(date +%s) - T0 )) s" >> $OUT/times.txt
cd $OUT && tar czf /tmp/all.tgz . && find . -type f ! -name tests.log ! -name san.log ! -name ncu.txt ! -name times.txt -delete; mv /tmp/all.tgz . ; ls -la
