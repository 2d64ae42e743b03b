#!/usr/bin/env bash
# Round 23B, call 2 (helper B): ncu on K4 without PDL overlap: (1) warp-state sampling by SASS address (SourceCounters,
# WarpStateStats) for D at peaked B=64 (ms_cu_k4<true>) and flat B=1 (ms_cu_k4<false>), H at peaked B=64; (2) K4's
# duration (gpu__time_duration, 8 launches, caches not flushed: the code and data as the step leaves them) and the SM
# instruction-cache counters for D and H at B=1 flat, B=64 peaked and flat. Run from main's root, carry .devcarry/r23b.
set -u
T0=$(date +%s)
C=.devcarry/r23b
mkdir -p $OUT
el() { echo $(( $(date +%s) - T0 )); }
ncu --version | tail -1 > $OUT/ncu2.txt
src_one() { # label binary batch shape
  echo "== ncu $1: ms_cu_k4 B=$3 $4 full, SourceCounters (t=$(el))" >> $OUT/ncu2.txt
  timeout 60 ncu --clock-control none -k regex:'^ms_cu_k4$' --launch-skip 40 --launch-count 1 \
    --section SourceCounters --section WarpStateStats --section LaunchStats --import-source yes \
    -o /tmp/rep_$1 -f $2 --batch $3 --vocab 151936 --shape $4 --setting full --no-baseline --reps 2 >/tmp/ncu_$1.log 2>&1
  tail -2 /tmp/ncu_$1.log >> $OUT/ncu2.txt
  ncu -i /tmp/rep_$1.ncu-rep --page details --print-details all 2>&1 | grep -iE "ms_cu_k4|Duration|Registers Per|Warp Cycles Per|Stall|Executed Instructions" | head -40 >> $OUT/ncu2.txt
  ncu -i /tmp/rep_$1.ncu-rep --page source --print-source cuda,sass --csv 2>/dev/null | gzip -c > $OUT/src_$1.csv.gz
}
src_one D64 $C/D/ms_bench_cuda 64 peaked
src_one H64 $C/H/ms_bench_cuda 64 peaked
src_one D1 $C/D/ms_bench_cuda 1 flat
M=gpu__time_duration.sum,sm__icc_requests.sum,sm__icc_requests_lookup_miss.sum,sm__icc_requests_lookup_miss_tag_miss.sum,smsp__pcsamp_warps_issue_stalled_no_instructions,smsp__pcsamp_warps_issue_stalled_imc_miss
M=gpu__time_duration.sum,sm__icc_requests.sum,sm__icc_requests_lookup_miss.sum,sm__icc_requests_lookup_miss_tag_miss.sum
for cell in 64:peaked 64:flat 1:flat 1:peaked; do IFS=: read b sh <<<"$cell"
  for v in D H D H; do
    echo "== time $v B=$b $sh (t=$(el))" >> $OUT/ncu2.txt
    timeout 40 ncu --clock-control none -k regex:'^ms_cu_k4$' --launch-skip 40 --launch-count 8 --cache-control none --metrics "$M" \
      $C/$v/ms_bench_cuda --batch $b --vocab 151936 --shape $sh --setting full --no-baseline --reps 2 2>&1 | grep -E "\.sum|ERR|rror" >> $OUT/ncu2.txt
  done
done
echo "total $(el) s" >> $OUT/ncu2.txt
tail -2 $OUT/ncu2.txt
