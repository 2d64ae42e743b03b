#!/bin/bash
# Twenty-sixth session's diagnostic call (for the next round, not a default change): where round 34B's NB (the default
# with -DMS_CU_OR_SB=1 first form and -DMS_CU_OR_SB_NOTK=1: no online top-k' cut) saves 0.5-0.9 us on peaked rows. ncu
# of K2or (ms_cu_k2<1,0,1,0>) at B=64 full setting fp32 V=151936 peaked, D (.devcarry/s25/D) and NB (.devcarry/r34b/NB):
# duration, instruction stats, warp states, source counters (exported as CSV for round 34B's region script); then D and NB
# alternating at peaked B=32/64 (three runs) for the times.
B=.devcarry/diag26
W=/tmp/w; rm -rf $W; mkdir -p $W $OUT; T0=$(date +%s)
prof() { # tag binary shape
  local tag=$1 bin=$2 sh=$3
  echo "== ncu $tag $sh B=64 ($(date -u +%H:%M:%S))" >> $W/ncu_$tag$sh.log
  timeout 50 ncu --clock-control none -k regex:ms_cu_k2 --launch-skip 40 --launch-count 1 --section SourceCounters \
    --section InstructionStats --section WarpStateStats --section SpeedOfLight --section LaunchStats --import-source yes \
    -o /tmp/rep_$tag$sh -f $bin --batch 64 --vocab 151936 --shape $sh --setting full --no-baseline --reps 3 >> $W/ncu_$tag$sh.log 2>&1
  echo "rc $? ($(( $(date +%s) - T0 )) s)" >> $W/ncu_$tag$sh.log
  ncu -i /tmp/rep_$tag$sh.ncu-rep --page details --print-details all >> $W/ncu_$tag$sh.log 2>&1
  ncu -i /tmp/rep_$tag$sh.ncu-rep --page source --print-source cuda,sass --csv 2>&1 | gzip > $W/src_$tag$sh.csv.gz
}
prof D $B/D/ms_bench_cuda peaked
prof NB $B/NB/ms_bench_cuda peaked
echo "ncu: $(( $(date +%s) - T0 )) s" >> $W/times.txt
DESC="D=35bf75e default;NB=round 34B's -DMS_CU_OR_SB=1 (lane-0 form) -DMS_CU_OR_SB_NOTK=1 (no online top-k' cut)"
OUT=$W AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D NB" AB_B=32,64 AB_N=3 AB_SETTINGS=full AB_SHAPE=peaked AB_STEPS="ab" \
  BUDGET_S=40 bash scripts/gpu_run.sh ab > $W/ab_run.log 2>&1
echo "all: $(( $(date +%s) - T0 )) s" >> $W/times.txt
cp $W/bench.txt $W/times.txt $OUT/ 2>/dev/null
tar czf $OUT/diag.tgz -C $W .
ls -la $OUT
