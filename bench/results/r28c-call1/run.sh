#!/usr/bin/env bash
# Round 28C, call 1: A/B of D (main's default), R (-DMS_CU_OR_RF_SC form: round 18B's fence) and R2 (-DMS_CU_OR_RF: the
# release reduction), full setting at the one-read B both shapes, top-p alone at B=64; stamps of DS and R2S at B=64;
# every CUDA test on R2's binary.
cd "$(dirname "$0")/../.."
B=.devcarry/r28c
DESC="D=main default (s20/D, 749eeac);R=r28c b57996e + -DMS_CU_OR_RF (fence.sc count);R2=r28c 23f9e05 + -DMS_CU_OR_RF (red.release count);DS=D + MS_CU_STAMPS (s20/DS);R2S=R2 + MS_CU_STAMPS"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D R R2" AB_B=28,32,48,52,64,96,128 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=80 bash scripts/gpu_run.sh ab
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D R R2" AB_B=64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=45 bash scripts/gpu_run.sh ab
AB_BIN=$B AB_DESC="$DESC" STAMPS_B=64 AB_STEPS="stamps:DS stamps:R2S" BUDGET_S=60 bash scripts/gpu_run.sh ab
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="tests:R2" BUDGET_S=150 bash scripts/gpu_run.sh ab
