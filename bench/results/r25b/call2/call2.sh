#!/bin/bash
# round 25B, second call: all 16 CUDA tests on R (main + MS_CU_OR_L2Q 1: the one-read rule from 1/4 of L2), then D, R
# and X (R + -DMS_CU_K1_OREXIT, noinline) where the rule moves (B=28..48 at V=151936, B=17..29 at V=262144) and in the
# one-read steps; top-p alone. Logs collected into a few files under $OUT.
set -u
R=.devcarry/r25b; O=$OUT; T=/tmp/r25b; mkdir -p $T
DESC="D=main 58a5672 default (b5274cd binaries);R=main + MS_CU_OR_L2Q 1 (r25b);X=R + -DMS_CU_K1_OREXIT (noinline)"
go() { # name, env...
  local nm=$1; shift
  echo "#### $nm: $* ($(date -u +%H:%M:%S))" | tee -a $O/log.txt
  env OUT=$T/$nm AB_BIN=$R AB_DESC="$DESC" "$@" bash scripts/gpu_run.sh ab >> $O/log.txt 2>&1
  for f in bench stamps; do [ -f $T/$nm/$f.txt ] && { echo "#### $nm"; cat $T/$nm/$f.txt; } >> $O/$f.txt; done
  [ -f $T/$nm/tests.log ] && cat $T/$nm/tests.log >> $O/tests.log
  [ -f $O/machine.txt ] || cp $T/$nm/machine.txt $O/machine.txt
}
go tests AB_STEPS="tests:R" BUDGET_S=140
go ab AB_VARIANTS="D R X" AB_B=24,28,32,40,48,64,128,256 AB_N=2 AB_SETTINGS=full AB_STEPS="ab ab:bf16" AB_B_DT=28,40 AB_VARIANTS_DT="D R" BUDGET_S=85
go v262 AB_VARIANTS="D R" AB_V=262144 AB_B=16,17,24,29,32 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=45
go topp AB_VARIANTS="D R X" AB_B=28,48,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=55
echo "#### done $(date -u +%H:%M:%S)" | tee -a $O/log.txt
