#!/usr/bin/env bash
# Round 26D, call 2 (bench only): D, X3 (-DMS_CU_K3W_K2=3) and X3O (X3 + -DMS_CU_K3W_OUT: K2or's K3 blocks out of line)
export AB_BIN=.devcarry/r26d
export AB_DESC="D=main 07370ad default;X3=r26d 7384004 -DMS_CU_K3W_K2=3;X3O=r26d 0130525 -DMS_CU_K3W_K2=3 -DMS_CU_K3W_OUT"
date -u +%H:%M:%S
AB_VARIANTS="D X3 X3O" AB_B=2,32,48,64 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=35 bash scripts/gpu_run.sh ab
AB_VARIANTS="D X3 X3O" AB_B=64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=30 bash scripts/gpu_run.sh ab
date -u +%H:%M:%S
