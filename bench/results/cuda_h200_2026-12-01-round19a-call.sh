#!/bin/bash
# Round 19A's device call (helper A, session 14): D and the L2 evict-first variants, from binaries carried in
# .devcarry/r19a/<V> (no build on the device). Run from the repository root with OUT set by the tool.
set -u
T0=$(date +%s); TOTAL=${TOTAL_S:-225}
left() { echo $(( TOTAL - ($(date +%s) - T0) )); }
export AB_BIN=.devcarry/r19a
export AB_DESC="D=main a267b81, the lead's build;P=-DMS_CU_LOGITS_EF;C=-DMS_CU_LOGITS_EF -DMS_CU_LOGITS_CS;PL=-DMS_CU_LOGITS_EF -DMS_CU_LOGITS_EF_LITE;DS=D + -DMS_CU_STAMPS;PLS=PL + -DMS_CU_STAMPS"
# 1. full setting fp32 at B=1..256, both shapes, D P C PL alternating, two runs (the first checks tokens);
#    bf16 at B=64,128 for D P PL, two runs
AB_VARIANTS="D P C PL" AB_B=1,16,52,64,128,256 AB_N=2 AB_SETTINGS=full AB_STEPS="ab ab:bf16" AB_B_DT=64,128 \
  AB_VARIANTS_DT="D P PL" BUDGET_S=${AB1_S:-95} bash scripts/gpu_run.sh ab
# 2. top-p alone at B=64,256 for D PL (two runs); the stamps of D and PL at B=64; all 16 CUDA tests on PL, last
AB_VARIANTS="D PL" AB_B=64,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab stamps:DS stamps:PLS tests:PL" STAMPS_B=64 \
  BUDGET_S=$(left) bash scripts/gpu_run.sh ab
echo "call: $(( $(date +%s) - T0 )) s"
