#!/bin/bash
# Round 31B, call 1: ncu source counters of K2or (ms_cu_k2<1,0,1,0>, ring-less one-read K2) at B=64 full setting,
# flat then peaked, on D (main's default, .devcarry/r31b/D). Per-SASS-instruction executed counts and stall samples.
mkdir -p $OUT; T0=$(date +%s)
B=.devcarry/r31b/D/ms_bench_cuda
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/ncu_flat.log 2>&1; ncu --version | tail -1 >> $OUT/ncu_flat.log
for sh in flat peaked; do
  [ $(( $(date +%s) - T0 )) -lt ${NCU_END:-120} ] || break
  echo "== ncu D $sh B=64 ($(date -u +%H:%M:%S))" >> $OUT/ncu_$sh.log
  timeout 70 ncu --clock-control none -k regex:ms_cu_k2 --launch-skip 40 --launch-count 1 --section SourceCounters --section WarpStateStats \
    --section LaunchStats --section SpeedOfLight --section SchedulerStats --section InstructionStats --import-source yes -o /tmp/rep_$sh -f \
    $B --batch 64 --vocab 151936 --shape $sh --setting full --no-baseline --reps 3 >> $OUT/ncu_$sh.log 2>&1
  echo "rc $? ($(( $(date +%s) - T0 )) s)" >> $OUT/ncu_$sh.log
  ncu -i /tmp/rep_$sh.ncu-rep --page details --print-details all >> $OUT/ncu_$sh.log 2>&1
  ncu -i /tmp/rep_$sh.ncu-rep --page source --print-source sass --csv 2>&1 | gzip > $OUT/sass_$sh.csv.gz
  ncu -i /tmp/rep_$sh.ncu-rep --page source --print-source cuda,sass --csv 2>&1 | gzip > $OUT/src_$sh.csv.gz
  echo "exported ($(( $(date +%s) - T0 )) s)" >> $OUT/ncu_$sh.log
done
ls -la $OUT
