#!/usr/bin/env bash
# Round 20A, call 1 (helper A): A/B of D, W, RW (full setting B=52..256 both shapes, 2 runs; bf16 B=64,128; top-p
# alone B=64,256), stamps at B=64 of DS, DC, RWS (with round 20A's counters where built), all 16 tests on RW.
export AB_BIN=.devcarry/r20a
export AB_DESC="D=main 6d11f28 (default);DS=D with -DMS_CU_STAMPS;W=D + -DMS_CU_OR_WSTAGE;RW=D + -DMS_CU_OR_WSTAGE -DMS_CU_OR_ROWCUT -DMS_CU_OR_SCAN0=2;DC=D with -DMS_CU_STAMPS + round 20A's counters (r20a);RWS=RW with -DMS_CU_STAMPS"
date -u
AB_VARIANTS="D W RW" AB_B=52,64,128,256 AB_N=2 AB_SETTINGS=full AB_B_DT=64,128 AB_N_DT=1 \
  AB_STEPS="ab ab:bf16 stamps:DS stamps:DC stamps:RWS" STAMPS_B=64 BUDGET_S=${B1:-120} bash scripts/gpu_run.sh ab
AB_VARIANTS="D W RW" AB_B=64,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=${B2:-50} bash scripts/gpu_run.sh ab
AB_STEPS="tests:RW" BUDGET_S=${B3:-125} bash scripts/gpu_run.sh ab
date -u
