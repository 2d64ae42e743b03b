#!/usr/bin/env bash
# Round 23B, call 1 (helper B): ncu on K4 (stall reasons by SASS address, instruction-cache counters), then the A/B
# of D, W (-DMS_CU_K4_WARM_OR), H (-DMS_CU_K4_HOT), WH (both): full setting B=1,16,64,128,256, top-p alone B=1,64,
# both shapes, two alternating runs; then stamps of DS, WS, HS at B=1,64. Run from main's root, carry .devcarry/r23b.
set -u
T0=$(date +%s)
C=.devcarry/r23b
mkdir -p $OUT
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader > $OUT/ncu.txt 2>&1
{ echo "== query (t=$(el))"; ncu --query-metrics --chip gh100 2>&1 | grep -iE 'icc|imc|inst_cache|icache|instruction cache' | head -30; } >> $OUT/ncu.txt 2>&1
ncu_one() { # label binary batch shape
  echo "== ncu $1: ms_cu_k4 B=$3 $4 full (t=$(el))" >> $OUT/ncu.txt
  timeout 60 ncu --clock-control none -k regex:'^ms_cu_k4$' --launch-skip 40 --launch-count 1 --pc-sampling-interval 0 \
    --section SourceCounters --section WarpStateStats --section LaunchStats --import-source yes \
    -o /tmp/rep_$1 -f $2 --batch $3 --vocab 151936 --shape $4 --setting full --no-baseline --reps 2 >/tmp/ncu_$1.log 2>&1
  tail -2 /tmp/ncu_$1.log >> $OUT/ncu.txt
  ncu -i /tmp/rep_$1.ncu-rep --page details --print-details all 2>&1 | grep -iE "ms_cu_k4|Duration|Registers Per|Warp Cycles Per|Stall|Grid Size|Block Size|Executed Instructions" | head -60 >> $OUT/ncu.txt
  ncu -i /tmp/rep_$1.ncu-rep --page source --print-source cuda,sass --csv 2>/dev/null | gzip -c > $OUT/src_$1.csv.gz
}
ncu_one D64 $C/D/ms_bench_cuda 64 peaked
ncu_one H64 $C/H/ms_bench_cuda 64 peaked
M=$(ncu --query-metrics --chip gh100 2>/dev/null | awk '{print $1}' | grep -iE '^sm__(icc|imc)|^smsp__(icc|imc)' | head -6 | sed 's/$/.sum/' | tr '\n' ',' | sed 's/,$//')
if [ -n "$M" ]; then
  for v in D H; do
    echo "== metrics $v B=64 peaked: $M (t=$(el))" >> $OUT/ncu.txt
    timeout 30 ncu --clock-control none -k regex:'^ms_cu_k4$' --launch-skip 40 --launch-count 1 --cache-control none --metrics "$M" \
      $C/$v/ms_bench_cuda --batch 64 --vocab 151936 --shape peaked --setting full --no-baseline --reps 2 2>&1 | grep -E "ms_cu_k4|\.sum|ERR|rror" | head -12 >> $OUT/ncu.txt
  done
fi
echo "== ncu done (t=$(el))" >> $OUT/ncu.txt
D="D=main f982925;W=-DMS_CU_K4_WARM_OR;H=-DMS_CU_K4_HOT;WH=both;DS=D stamps;WS=W stamps;HS=H stamps"
AB_BIN=$C AB_DESC="$D" AB_VARIANTS="D W H WH" AB_B=1,16,64,128,256 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" \
  BUDGET_S=$(( ${TOTAL_S:-190} - $(el) )) bash scripts/gpu_run.sh ab > $OUT/run.log 2>&1
AB_BIN=$C AB_DESC="$D" AB_VARIANTS="D W H WH" AB_B=1,64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab stamps:DS stamps:WS stamps:HS" \
  STAMPS_B=1,64 BUDGET_S=$(( ${TOTAL_S:-190} - $(el) )) bash scripts/gpu_run.sh ab >> $OUT/run.log 2>&1
rm -f $OUT/machine.txt
echo "total $(el) s" >> $OUT/run.log
tail -3 $OUT/run.log
