#!/bin/bash
# round 27C's second device call: all 16 CUDA tests of FL (-DMS_CU_K3_FASTX -DMS_CU_K3_FASTL), then ab of D and FL:
# top-p B=1,16,64,256 (fp32; and FLN = FL with -DMS_CU_K2_HLEAN_NG=4), top-p bf16 B=64,256, full B=1,16 (the K3W K2 instantiation changed); ncu kernel times of FL at top-p peaked B=64/256
set -u
cd "$(dirname "$0")/../.."
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
T0=$(date +%s)
TOT=${TOT_S:-160}
left() { echo $(( TOT - ($(date +%s) - T0) )); }
export AB_BIN=.devcarry/r27c AB_DESC="D=main f499448 default (s19/D);FL=-DMS_CU_K3_FASTX -DMS_CU_K3_FASTL (6386f0e);FLN=FL with -DMS_CU_K2_HLEAN_NG=4"
AB_STEPS="tests:FL" BUDGET_S=$(( $(left) - 40 )) bash scripts/gpu_run.sh ab > "$OUT/run.log" 2>&1
echo "tests done $(( $(date +%s) - T0 )) s" >> "$OUT/run.log"
AB_VARIANTS="D FL FLN" AB_B=1,16,64,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
AB_VARIANTS="D FL" AB_B=1,16 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
AB_VARIANTS="D FL" AB_B=64,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab:bf16" BUDGET_S=$(left) bash scripts/gpu_run.sh ab >> "$OUT/run.log" 2>&1
{
for vbs in FL:64:peaked FL:256:peaked FLN:64:flat; do
  v=${vbs%%:*}; b=${vbs#*:}; sh=${b#*:}; b=${b%%:*}
  [ $(left) -gt 12 ] || break
  echo "== ncu top-p $sh B=$b $v"
  timeout 15 ncu --clock-control none -k regex:ms_cu_k --launch-skip 200 --launch-count 12 --metrics gpu__time_duration.sum \
    build-gpu$v/ms_bench_cuda --batch $b --vocab 151936 --shape $sh --setting top-p --no-baseline --reps 3 >/tmp/ncu.log 2>&1
  grep -E "ms_cu_k|gpu__time_duration" /tmp/ncu.log | paste - - | awk '{print $1, $2, $(NF)}'
done
} > "$OUT/ncu_times.txt" 2>&1
echo "== done $(( $(date +%s) - T0 )) s" >> "$OUT/run.log"
rm -f "$OUT/build.log"
