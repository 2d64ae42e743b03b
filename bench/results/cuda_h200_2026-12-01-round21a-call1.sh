#!/usr/bin/env bash
# Round 21A, call 1 (helper A): A/B of D, RP, RL (full setting B=52..256 both shapes, 2 runs; bf16 B=64,128 2 runs;
# top-p alone B=64,256 2 runs), stamps at B=64 of DS and RLS, then all 16 CUDA tests on RL.
export AB_BIN=.devcarry/r21a
export AB_DESC="D=main e40eb42's default (the lead's s16/D);DS=D with -DMS_CU_STAMPS (s16/DS);RP=r21a + -DMS_CU_OR_ROWCUT -DMS_CU_OR_ROWCUT_PLAIN;RL=r21a + -DMS_CU_OR_RCL;RLS=RL with -DMS_CU_STAMPS"
date -u
md5sum $AB_BIN/*/ms_bench_cuda $AB_BIN/*/ms_cuda_tests
AB_VARIANTS="D RP RL" AB_B=52,64,128,256 AB_N=2 AB_SETTINGS=full AB_B_DT=64,128 AB_N_DT=2 \
  AB_STEPS="ab ab:bf16 stamps:DS stamps:RLS" STAMPS_B=64 BUDGET_S=${B1:-110} bash scripts/gpu_run.sh ab
AB_VARIANTS="D RP RL" AB_B=64,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS=ab BUDGET_S=${B2:-45} bash scripts/gpu_run.sh ab
AB_STEPS="tests:RL" BUDGET_S=${B3:-115} bash scripts/gpu_run.sh ab
date -u
