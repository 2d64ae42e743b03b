#!/bin/bash
# Twenty-fifth session's big-B call: D and M (the final call's binaries) at the B the final call did not cover, where
# K2or runs with the ring and K4 as K4L + K4R (B=176, 200, 256 at V=151936 fp32; two runs each, D first then M first),
# and bf16 B=256 (one run each order).
B=.devcarry/fin25
mkdir -p $OUT
DESC="D=1821d95 session start;M=merged default (round 33B's TAIL2 on; 33A and 33C off)"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D M" AB_B=176,200,256 AB_N=1 AB_SETTINGS=full AB_VARIANTS_DT="D M" AB_B_DT=256 AB_N_DT=1 AB_STEPS="ab ab:bf16" BUDGET_S=60 bash scripts/gpu_run.sh ab > $OUT/ab1_run.log 2>&1
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="M D" AB_B=176,200,256 AB_N=1 AB_SETTINGS=full AB_VARIANTS_DT="M D" AB_B_DT=256 AB_N_DT=1 AB_STEPS="ab ab:bf16" BUDGET_S=60 bash scripts/gpu_run.sh ab > $OUT/ab2_run.log 2>&1
cd $OUT && ls -la
