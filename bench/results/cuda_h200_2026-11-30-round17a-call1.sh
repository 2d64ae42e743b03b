#!/bin/bash
# round 17A, call 1: ab of D / H / HP / HPF (fp32 full + top-p, B=1,4,16,64,256, both shapes, 2 runs), bf16 B=64,
# then every CUDA test and both sanitizers on HPF. Output: $OUT/call1.log plus gpu_run.sh's logs.
set -o pipefail
export AB_BIN=.devcarry/r17a
export AB_DESC="D=main d4181c2 default (lead's build-d0);H=r17a -DMS_CU_K2_HSPLIT;HP=r17a -DMS_CU_K2_HSPLIT -DMS_CU_K2_PENCALL;HPF=r17a -DMS_CU_K2_HSPLIT -DMS_CU_K2_PENCALL -DMS_CU_K2_PF"
echo "== call1 start $(date -u +%H:%M:%S)"
AB_VARIANTS="D H HP HPF" AB_B=1,4,16,64,256 AB_N=2 AB_SETTINGS=full,top-p AB_B_DT=64 AB_N_DT=2 \
  AB_STEPS="ab ab:bf16 tests:HPF san:HPF" BUDGET_S=${CALL_S:-280} bash scripts/gpu_run.sh ab
echo "== call1 end $(date -u +%H:%M:%S)"
