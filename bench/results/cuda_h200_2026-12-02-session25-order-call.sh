#!/bin/bash
# Twenty-fifth session's order call: the final call's A/B again with M first in each alternation (M, D, M, D, ...), so
# that the order effect seen in its controls (B=1 / 16, byte-identical kernels: M +0.09..+0.11 us when run second)
# falls on D; full setting fp32 V=151936, both shapes, B=16 (control) and the one-read steps B=28..128, three runs.
B=.devcarry/fin25
mkdir -p $OUT
DESC="D=1821d95 session start;M=merged default (round 33B's TAIL2 on; 33A and 33C off)"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="M D" AB_B=16,28,32,48,64,96,128 AB_N=3 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=100 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
cd $OUT && ls -la
