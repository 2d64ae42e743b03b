#!/bin/bash
# round 27C's first device call: ncu kernel times (top-p alone, B=64/256, both shapes) of D and FP, ncu --set full with
# source counters of K2 (flat B=64) and K3 (peaked B=64) on D, then ab of D and FP (top-p B=1,16,64,256; full 1,64)
set -u
cd "$(dirname "$0")/../.."
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
T0=$(date +%s)
TOT=${TOT_S:-170}
left() { echo $(( TOT - ($(date +%s) - T0) )); }
export AB_BIN=.devcarry/r27c AB_DESC="D=main f499448 default (s19/D);FP=-DMS_CU_K2_HPACK -DMS_CU_K3_FASTX"
# the binaries in place (gpu_run.sh ab copies them to build-gpu<V>)
AB_STEPS="none" BUDGET_S=30 bash scripts/gpu_run.sh ab > "$OUT/run.log" 2>&1
{
for v in D FP; do for b in 64 256; do for sh in flat peaked; do
  [ $v = FP ] && [ $b = 256 ] && [ $sh = peaked ] && continue
  echo "== ncu top-p $sh B=$b $v"
  timeout 40 ncu --clock-control none -k regex:ms_cu_k --launch-skip 200 --launch-count 12 --metrics gpu__time_duration.sum \
    build-gpu$v/ms_bench_cuda --batch $b --vocab 151936 --shape $sh --setting top-p --no-baseline --reps 3 >/tmp/ncu.log 2>&1
  grep -E "ms_cu_k|gpu__time_duration" /tmp/ncu.log | paste - - | awk '{print $1, $2, $(NF)}'
done; done; done
} > "$OUT/ncu_times.txt" 2>&1
echo "ncu times done $(( $(date +%s) - T0 )) s" >> "$OUT/run.log"
src() { # variant kernel-regex batch shape tag
  [ $(left) -gt 50 ] || { echo "src $5: no time" >> "$OUT/run.log"; return; }
  timeout 45 ncu --clock-control none -k regex:$2 --launch-skip 60 --launch-count 1 --set full --import-source yes \
    -o /tmp/rep_$5 -f build-gpu$1/ms_bench_cuda --batch $3 --vocab 151936 --shape $4 --setting top-p --no-baseline --reps 3 >/tmp/ncu_$5.log 2>&1
  tail -2 /tmp/ncu_$5.log >> "$OUT/run.log"
  { ncu -i /tmp/rep_$5.ncu-rep --page details --print-details all 2>&1;
    ncu -i /tmp/rep_$5.ncu-rep --page raw 2>&1 | grep -E "shared_op_atom|smsp__pcsamp_warps_issue_stalled|inst_executed.sum |sm__cycles_elapsed.avg |smsp__inst_executed_op_shared|pipe_lsu|launch__" ;
    ncu -i /tmp/rep_$5.ncu-rep --page source --print-source cuda,sass --csv >/tmp/src_$5.csv 2>&1; python3 scripts/gpu_ncu_lines.py /tmp/src_$5.csv 40; } > "$OUT/src_$5.txt" 2>&1
  echo "src $5 done $(( $(date +%s) - T0 )) s" >> "$OUT/run.log"
}
src D "ms_cu_k2" 64 flat k2flat
src D "ms_cu_k3" 64 peaked k3peak
src FP "ms_cu_k2" 64 flat k2flatFP
AB_VARIANTS="D FP" AB_B=1,16,64,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
AB_VARIANTS="D FP" AB_B=1,64 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
echo "== done $(( $(date +%s) - T0 )) s" >> "$OUT/run.log"
rm -f "$OUT/build.log"
ls -la "$OUT" >> "$OUT/run.log"
