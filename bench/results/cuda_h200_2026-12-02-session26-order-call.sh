#!/bin/bash
# Twenty-sixth session's order call: the final call's A/B again with M first in each alternation (M, D, M, D, ...), so
# that the run-order effect falls on D; full setting fp32 V=151936, both shapes, B=1, 2 (control) and 28..128, three runs.
B=.devcarry/fin26
mkdir -p $OUT
DESC="D=35bf75e session start;M=merged tree with WARM_CHUNK=1536 and OR_LOOP2=3"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="M D" AB_B=1,2,28,32,48,64,96,128 AB_N=3 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=110 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
cd $OUT && ls -la
