#!/usr/bin/env bash
# Round 26D, call 1: ab of D (main 07370ad's default), X3 (-DMS_CU_K3W_K2=3), X2 (main + -DMS_CU_K3W_K2=2, bench only);
# then top-p alone; then all 16 CUDA tests of X3.
export AB_BIN=.devcarry/r26d
export AB_DESC="D=main 07370ad default;X3=r26d -DMS_CU_K3W_K2=3;X2=main 07370ad -DMS_CU_K3W_K2=2"
date -u +%H:%M:%S
AB_VARIANTS="D X3 X2" AB_B=1,2,4,16,24,32,48,64,128,256 AB_N=2 AB_SETTINGS=full \
  AB_VARIANTS_DT="D X3" AB_B_DT=32,64 AB_N_DT=2 AB_STEPS="ab ab:bf16" BUDGET_S=110 bash scripts/gpu_run.sh ab
AB_VARIANTS="D X3 X2" AB_B=1,64,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=45 bash scripts/gpu_run.sh ab
AB_STEPS="tests:X3" BUDGET_S=140 bash scripts/gpu_run.sh ab
date -u +%H:%M:%S
