#!/usr/bin/env bash
# Round 28C, call 2: D, R2 (-DMS_CU_OR_RF) and R3 (R2 with -DMS_CU_RF_NS=0: the spin without back-off), full setting,
# the one-read B both shapes, three alternating runs each (call 1's peaked B=28 / 32 / 128 losses: noise or not).
cd "$(dirname "$0")/../../.."
B=.devcarry/r28c/c2
DESC="D=main default (s20/D, 749eeac);R2=r28c 23f9e05 + -DMS_CU_OR_RF (red.release count);R3=r28c 118912b + -DMS_CU_OR_RF -DMS_CU_RF_NS=0"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D R2 R3" AB_B=28,32,48,64,96,128 AB_N=3 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=75 bash scripts/gpu_run.sh ab
