#!/bin/bash
# Round 18A, device call 1: stamps of S (default + MS_CU_STAMPS + events 26/27), A/B of D against the variants
# at B=64,128 (full setting, both shapes, two alternating runs), then ncu source counters of D's K2 at B=64
# flat and peaked (and K1 at B=32 flat if time is left).
set -u
R=.devcarry/r18a
T0=$(date +%s)
AB_BIN=$R/bin AB_VARIANTS="${VARS:-D PA PD N4 BK PB}" AB_B=64,128 AB_N=2 AB_SETTINGS=full STAMPS_B=64 \
  AB_STEPS="stamps:S ab" BUDGET_S=${AB_BUDGET:-115} bash scripts/gpu_run.sh ab 2>&1 | grep -v "binaries do not run"
mkdir -p build-gpu && cp $R/bin/D/ms_bench_cuda build-gpu/ms_bench_cuda
for sh in flat peaked; do
  SKIP_BUILD=1 SRC_K="ms_cu_k2:64" PROF_SHAPE=$sh BUDGET_S=45 bash scripts/gpu_run.sh src > /tmp/src_$sh.log 2>&1
  mv $OUT/src_ms_cu_k2.csv.gz $OUT/src_k2_$sh.csv.gz 2>/dev/null
  tail -2 /tmp/src_$sh.log
done
left=$(( ${TOTAL_S:-200} - ($(date +%s) - T0) ))
if [ $left -gt 45 ]; then
  SKIP_BUILD=1 SRC_K="ms_cu_k1:32" PROF_SHAPE=flat BUDGET_S=$(( left - 3 )) bash scripts/gpu_run.sh src > /tmp/src_k1.log 2>&1
  mv $OUT/src_ms_cu_k1.csv.gz $OUT/src_k1_flat.csv.gz 2>/dev/null
fi
rm -f $OUT/machine.txt.bak
echo "call1 done in $(( $(date +%s) - T0 )) s"
