#!/bin/bash
# round 17A, call 2: the full setting's cost of -DMS_CU_K2_HSPLIT again, the order reversed (H3, H, then D), 3 runs;
# H3 = H with the min-p rows' copy at one group in flight (MS_CU_K2_HSPLIT_MPNG=1). No tests (device budget).
set -o pipefail
export AB_BIN=.devcarry/r17a
export AB_DESC="D=main d4181c2 default (lead's build-d0);H=r17a -DMS_CU_K2_HSPLIT;H3=r17a 44b2c32 -DMS_CU_K2_HSPLIT -DMS_CU_K2_HSPLIT_MPNG=1"
echo "== call2 start $(date -u +%H:%M:%S)"
AB_VARIANTS="H3 H D" AB_B=1,4,16,64,256 AB_N=3 AB_SETTINGS=full,top-p AB_STEPS="ab" BUDGET_S=${CALL_S:-75} bash scripts/gpu_run.sh ab
echo "== call2 end $(date -u +%H:%M:%S)"
