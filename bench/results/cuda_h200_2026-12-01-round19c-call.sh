#!/usr/bin/env bash
# Round 19C's device call (helper C, fourteenth session): A/B of D, W, C, F (full setting B=1..64, top-p alone
# B=1,16), stamps at B=1 of DS and CS (stamps builds of the default and of C), all 16 CUDA tests on C, then ncu source
# counters (SourceCounters + WarpStateStats) of K2 at flat B=1 on D and C while time is left. TOTAL_S: the budget.
set -u
T0=$(date +%s)
left() { echo $(( ${TOTAL_S:-235} - ($(date +%s) - T0) )); }
B=.devcarry/r19c
export AB_BIN=$B AB_DESC="D=main a267b81 (lead's build);W=r19c c57ec7e -DMS_CU_EARLY_NOWIN;C=r19c 55dbf9e -DMS_CU_EARLY_NOWIN -DMS_CU_EARLY_F32 (scan copy);F=r19c 6c9294c -DMS_CU_EARLY_NOWIN -DMS_CU_EARLY_F32 (whole lite path copied; bench only);DS=r19c 55dbf9e default -DMS_CU_STAMPS;CS=r19c 55dbf9e C -DMS_CU_STAMPS"
echo "== call start $(date -u +%H:%M:%S)"
AB_VARIANTS="D W C F" AB_B=1,4,16,32,64 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=$(( $(left) - 120 )) bash scripts/gpu_run.sh ab > /tmp/ab1.log 2>&1
tail -1 /tmp/ab1.log
AB_VARIANTS="D W C F" AB_B=1,16 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=$(( $(left) - 115 )) bash scripts/gpu_run.sh ab > /tmp/ab2.log 2>&1
tail -1 /tmp/ab2.log
STAMPS_B=1 AB_STEPS="stamps:DS stamps:CS" BUDGET_S=$(( $(left) - 105 )) bash scripts/gpu_run.sh ab > /tmp/ab3.log 2>&1
tail -1 /tmp/ab3.log
AB_STEPS="tests:C" BUDGET_S=$(( $(left) - 3 )) bash scripts/gpu_run.sh ab > /tmp/ab4.log 2>&1
grep -E "passed|failed|not ok|FAIL|differ" $OUT/tests.log | tail -20
tail -1 /tmp/ab4.log
for v in D C; do
  [ $(left) -gt 30 ] || { echo "ncu $v: no time left ($(left) s)" | tee -a $OUT/ncu.txt; continue; }
  echo "== ncu SourceCounters+WarpStateStats ms_cu_k2 B=1 full flat $v ($(date -u +%H:%M:%S))" | tee -a $OUT/ncu.txt
  timeout $(( $(left) - 5 )) ncu --clock-control none -k ms_cu_k2 --launch-skip 60 --launch-count 1 --section SourceCounters \
    --section WarpStateStats --section LaunchStats --import-source yes -o /tmp/rep_$v -f build-gpu$v/ms_bench_cuda --batch 1 \
    --vocab 151936 --shape flat --setting full --no-baseline --reps 3 > /tmp/ncu_$v.log 2>&1
  tail -2 /tmp/ncu_$v.log | tee -a $OUT/ncu.txt
  ncu -i /tmp/rep_$v.ncu-rep --page details --print-details all 2>&1 | grep -iE "Duration|Registers Per|Warp Cycles Per|Stall|stall|Function Name|Instructions" | head -40 | tee -a $OUT/ncu.txt
  ncu -i /tmp/rep_$v.ncu-rep --page source --print-source cuda,sass --csv > /tmp/src_$v.csv 2>&1
  gzip -c /tmp/src_$v.csv > $OUT/src_k2_b1_$v.csv.gz
  echo "   done $(date -u +%H:%M:%S)" | tee -a $OUT/ncu.txt
done
rm -f $OUT/build.log
ls -la $OUT
echo "== call end $(date -u +%H:%M:%S) ($(( $(date +%s) - T0 )) s)"
