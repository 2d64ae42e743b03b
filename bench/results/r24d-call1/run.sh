#!/bin/bash
# round 24D's device call: ab (D, H, HK; full and top-p), all 16 tests of HK, ncu per kernel at top-p flat B=64
set -u
cd "$(dirname "$0")/../../.."
export OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
T0=$(date +%s)
TOT=${TOT_S:-180}
left() { echo $(( TOT - ($(date +%s) - T0) )); }
AB_BIN=.devcarry/r24d AB_VARIANTS="${VARS:-D H HK}" AB_B=1,16,64,256 AB_N=2 AB_SETTINGS=full,top-p \
  AB_STEPS="${STEPS:-ab tests:HK}" AB_DESC="D=main 8e145d3 default;H=-DMS_CU_K2_HLEAN;HK=-DMS_CU_K2_HLEAN -DMS_CU_K3_SLEAN" \
  BUDGET_S=${AB_BUDGET:-158} bash scripts/gpu_run.sh ab > "$OUT/gpu_run.log" 2>&1
for vbs in ${NCU:-HK:64:flat D:64:flat}; do
  v=${vbs%%:*}; rest=${vbs#*:}; b=${rest%%:*}; sh=${rest#*:}
  [ $(left) -gt 12 ] || { echo "== ncu $vbs: no time left" >> "$OUT/ncu.txt"; continue; }
  echo "== ncu top-p $sh B=$b $v ($(date -u +%H:%M:%S))" >> "$OUT/ncu.txt"
  timeout $(( $(left) - 3 < 30 ? $(left) - 3 : 30 )) ncu --clock-control none -k regex:ms_cu_k --launch-skip 200 --launch-count 10 \
    --metrics gpu__time_duration.sum build-gpu$v/ms_bench_cuda --batch $b --vocab 151936 --shape $sh --setting top-p \
    --no-baseline --reps 3 > /tmp/ncu.log 2>&1
  grep -E "ms_cu_k|gpu__time_duration" /tmp/ncu.log | sed 's/(ms_cu_args).*//; s/^ *//' | paste - - | awk "{print \$1, \$2, \$(NF-1), \$NF}" >> "$OUT/ncu.txt"
  grep -iE "error|warn" /tmp/ncu.log | head -3 >> "$OUT/ncu.txt"
done
echo "== done $(( $(date +%s) - T0 )) s" >> "$OUT/ncu.txt"
