#!/usr/bin/env bash
# round 25A, call 1: A/B of D (baseline), K (-DMS_CU_K3_SKIP=2: the bound, full setting only), W (-DMS_CU_K3W_K2);
# all 16 CUDA tests on W; stamps of DS and WS at B=1.
set -u
export AB_BIN=.devcarry/r25a AB_DESC="D=main 58a5672 default (b5274cd binaries);K=-DMS_CU_K3_SKIP=2 (no K3: bound, full only);W=-DMS_CU_K3W_K2;DS=D stamps;WS=W stamps"
AB_VARIANTS="D K W" AB_B=1,2,4,16,64 AB_N=2 AB_SETTINGS=full AB_VARIANTS_DT="D K W" AB_B_DT=1 AB_N_DT=2 \
  STAMPS_B=1 AB_STEPS="ab ab:bf16 stamps:DS stamps:WS" BUDGET_S=110 bash scripts/gpu_run.sh ab
AB_VARIANTS="D W" AB_B=1,2 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab tests:W" BUDGET_S=170 bash scripts/gpu_run.sh ab
