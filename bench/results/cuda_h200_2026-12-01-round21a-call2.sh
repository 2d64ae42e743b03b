#!/usr/bin/env bash
# Round 21A, call 2 (helper A): A/B of D, PAD (the stats 64 bytes larger, no code), RL at the full setting B=52..256,
# both shapes, 2 runs; then ncu (warp states, source counters) of K2or at peaked B=64 for D and RL.
export AB_BIN=.devcarry/r21a
export AB_DESC="D=main e40eb42's default (the lead's s16/D);PAD=r21a 521f0ac + -DMS_CU_STAT_PAD (stats +64 B a row, no row-cut code);RL=r21a 9b964c7 + -DMS_CU_OR_RCL"
date -u
md5sum $AB_BIN/{D,PAD,RL}/ms_bench_cuda
AB_VARIANTS="D PAD RL" AB_B=52,64,128,256 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=${B1:-45} bash scripts/gpu_run.sh ab
for v in D RL; do
  echo "== ncu K2or peaked B=64 $v ($(date -u +%T))" | tee -a $OUT/ncu.txt
  timeout ${NT:-45} ncu --clock-control none -k regex:ms_cu_k2 --launch-skip 60 --launch-count 1 \
    --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats --section SourceCounters \
    --import-source yes -o /tmp/rep_$v -f $AB_BIN/$v/ms_bench_cuda --batch 64 --vocab 151936 --shape peaked \
    --setting full --no-baseline --reps 3 >/tmp/ncu_$v.log 2>&1
  tail -2 /tmp/ncu_$v.log | tee -a $OUT/ncu.txt
  ncu -i /tmp/rep_$v.ncu-rep --page details --print-details all 2>&1 | grep -vE "^\s*$|----" | head -90 >> $OUT/ncu.txt
  ncu -i /tmp/rep_$v.ncu-rep --page source --print-source cuda,sass --csv >/tmp/src_$v.csv 2>&1
  python3 scripts/gpu_ncu_lines.py /tmp/src_$v.csv 30 >> $OUT/ncu.txt 2>&1
  gzip -c /tmp/src_$v.csv > $OUT/src_k2or_$v.csv.gz
done
date -u
