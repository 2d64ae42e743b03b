#!/bin/bash
# Round 34C, call 1 (carried as .devcarry/r34c/call1.sh; run from the repository root with $OUT set; carry .devcarry/r34c).
# D = main 35bf75e's default (.devcarry/s25/D); DS = the lead's stamps bench of main 35bf75e (.devcarry/s26/DS);
# N2 = r34c -DMS_CU_OR_LOOP2=2 (constant step + whole-step loads without the ring); N1 = r34c -DMS_CU_OR_LOOP2=1.
# Steps: ncu SourceCounters of D's K2or (ms_cu_k2<1,0,1,0>) at peaked B=64 full fp32 V=151936 (round 33B's command),
# ncu InstructionStats + SourceCounters of N2's K2or (same); stamps of DS at B=32,64 (both shapes); A/B D N2 N1 at B=32,64.
B=.devcarry/r34c
W=/tmp/w; rm -rf $W; mkdir -p $W $OUT; T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/machine.txt 2>&1; ncu --version | tail -1 >> $W/machine.txt
prof() { # tag binary shape
  local tag=$1 bin=$2 sh=$3
  echo "== ncu $tag $sh B=64 ($(date -u +%H:%M:%S))" >> $W/ncu_$tag$sh.log
  timeout 45 ncu --clock-control none -k regex:ms_cu_k2 --launch-skip 40 --launch-count 1 --section SourceCounters \
    --section InstructionStats --import-source yes -o /tmp/rep_$tag$sh -f $bin --batch 64 --vocab 151936 --shape $sh \
    --setting full --no-baseline --reps 3 >> $W/ncu_$tag$sh.log 2>&1
  echo "rc $? ($(( $(date +%s) - T0 )) s)" >> $W/ncu_$tag$sh.log
  ( ncu -i /tmp/rep_$tag$sh.ncu-rep --page details --print-details all >> $W/ncu_$tag$sh.log 2>&1
    ncu -i /tmp/rep_$tag$sh.ncu-rep --page source --print-source cuda,sass --csv 2>&1 | gzip > $W/src_$tag$sh.csv.gz
    echo "exported ($(( $(date +%s) - T0 )) s)" >> $W/ncu_$tag$sh.log ) &
}
prof D $B/D/ms_bench_cuda peaked
[ -x $B/N2/ms_bench_cuda ] && prof N2 $B/N2/ms_bench_cuda peaked
echo "ncu: $(( $(date +%s) - T0 )) s" >> $W/times.txt
DESC="D=main 35bf75e default (s25/D);DS=main 35bf75e stamps (s26/DS);N2=r34c -DMS_CU_OR_LOOP2=2;N1=r34c -DMS_CU_OR_LOOP2=1"
VS="D N2"; [ -x $B/N1/ms_bench_cuda ] && VS="D N2 N1"
OUT=$W AB_BIN=$B AB_DESC="$DESC" STAMPS_B=32,64 AB_VARIANTS="$VS" AB_B=32,64 AB_N=2 AB_SETTINGS=full \
  AB_STEPS="stamps:DS ab" BUDGET_S=${BA:-75} bash scripts/gpu_run.sh ab > $W/ab_run.log 2>&1
echo "stamps+ab: $(( $(date +%s) - T0 )) s" >> $W/times.txt
wait
echo "all: $(( $(date +%s) - T0 )) s" >> $W/times.txt
rm -rf build-gpu*
cp $W/bench.txt $W/stamps.txt $W/times.txt $OUT/ 2>/dev/null
tar czf $OUT/call1.tgz -C $W .
ls -la $W $OUT
