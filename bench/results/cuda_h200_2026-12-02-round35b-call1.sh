#!/bin/bash
# Round 35B, call 1 (carried as .devcarry/r35b/call1.sh; run from the repository root with $OUT set; carry .devcarry/r35b).
# D = main 3666153's default (.devcarry/s27/F: c749933, the same kernels); DS = the lead's stamps bench of main 3666153
# (.devcarry/s27/FS); N = r35b -DMS_CU_OR_PRE1=2 (K2or's first step's logits and seen words loaded at entry);
# NS = N's code with -DMS_CU_STAMPS.
# Steps: stamps DS / NS at B=32,64 (both shapes); A/B full fp32 V=151936 B=28..128 both shapes (D N twice, then N D
# once); bf16 B=64 and top-p alone B=64 (D N, N D). N's test runner is not carried here (the tool's 64 MiB bound on
# the tree and the carry): the tests run in call 2.
B=.devcarry/r35b
W=/tmp/w; rm -rf $W; mkdir -p $W $OUT; T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/machine.txt 2>&1
DESC="D=main 3666153 default (s27/F);DS=stamps bench of main 3666153 (s27/FS);N=r35b -DMS_CU_OR_PRE1=2;NS=r35b -DMS_CU_OR_PRE1=2 -DMS_CU_STAMPS"
COMMON="AB_BIN=$B"
sv() { cp $W/bench.txt $W/stamps.txt $W/tests.log $W/times.txt $OUT/ 2>/dev/null; } # what is there so far, should the call run out
date -u +"start %H:%M:%S" >> $W/times.txt
env OUT=$W $COMMON AB_DESC="$DESC" STAMPS_B=32,64 AB_STEPS="stamps:DS stamps:NS" BUDGET_S=${BS:-60} bash scripts/gpu_run.sh ab > $W/stamps_run.log 2>&1
echo "stamps: $(( $(date +%s) - T0 )) s" >> $W/times.txt; sv
env OUT=$W $COMMON AB_DESC="$DESC" AB_VARIANTS="D N" AB_B=28,32,48,64,96,128 AB_N=2 AB_SETTINGS=full \
  AB_STEPS="ab" BUDGET_S=${BA:-80} bash scripts/gpu_run.sh ab > $W/ab_run.log 2>&1
env OUT=$W $COMMON AB_DESC="$DESC" AB_VARIANTS="N D" AB_B=28,32,48,64,96,128 AB_N=1 AB_SETTINGS=full \
  AB_STEPS="ab" BUDGET_S=${BA2:-50} bash scripts/gpu_run.sh ab > $W/ab2_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s" >> $W/times.txt; sv
cp $W/bench.txt $W/bench_fp32.txt
env OUT=$W $COMMON AB_DESC="$DESC" AB_VARIANTS="D N" AB_B=64 AB_N=1 AB_SETTINGS=full,top-p AB_B_DT=64 AB_N_DT=1 \
  AB_VARIANTS_DT="D N" AB_STEPS="ab ab:bf16" BUDGET_S=${BB:-45} bash scripts/gpu_run.sh ab > $W/abx_run.log 2>&1
env OUT=$W $COMMON AB_DESC="$DESC" AB_VARIANTS="N D" AB_B=64 AB_N=1 AB_SETTINGS=full,top-p AB_B_DT=64 AB_N_DT=1 \
  AB_VARIANTS_DT="N D" AB_STEPS="ab ab:bf16" BUDGET_S=${BB:-45} bash scripts/gpu_run.sh ab > $W/abx2_run.log 2>&1
echo "bf16/top-p: $(( $(date +%s) - T0 )) s" >> $W/times.txt; sv
date -u +"end %H:%M:%S" >> $W/times.txt
rm -rf build-gpu*
cp $W/bench_fp32.txt $W/bench.txt $W/stamps.txt $W/tests.log $W/times.txt $OUT/ 2>/dev/null
tar czf $OUT/call1.tgz -C $W .
ls -la $OUT
