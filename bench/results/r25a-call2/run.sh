#!/usr/bin/env bash
# round 25A, call 2: A/B of D, W (-DMS_CU_K3W_K2: warm-up steps), X2 (-DMS_CU_K3W_K2=2: every plain-K2 step);
# all 16 CUDA tests on X2; cuda_identity_k3_giveup (its cases fixed for round 25A) on W.
set -u
export AB_BIN=.devcarry/r25a AB_DESC="D=main 58a5672 default (b5274cd binaries);W=-DMS_CU_K3W_K2 (e837f38);X2=-DMS_CU_K3W_K2=2 (e751283)"
AB_VARIANTS="D W X2" AB_B=1,2,4,16,32,64 AB_N=2 AB_SETTINGS=full AB_VARIANTS_DT="D X2" AB_B_DT=1 AB_N_DT=2 \
  AB_STEPS="ab ab:bf16" BUDGET_S=70 bash scripts/gpu_run.sh ab
AB_VARIANTS="D W X2" AB_B=1,16 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=55 bash scripts/gpu_run.sh ab
AB_STEPS="tests:X2" BUDGET_S=160 bash scripts/gpu_run.sh ab
AB_STEPS="tests:W" AB_TESTS=cuda_identity_k3_giveup BUDGET_S=25 bash scripts/gpu_run.sh ab
