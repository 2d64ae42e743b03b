#!/usr/bin/env bash
# Round 19B, device call 1 (run from the repository root on the device; binaries carried in .devcarry/r19b/<V>)
set -u
md5sum .devcarry/r19b/*/ms_bench_cuda .devcarry/r19b/*/ms_cuda_tests 2>/dev/null | tee "$OUT/build.log"
AB_BIN=.devcarry/r19b \
AB_DESC="D=main a267b81, the lead's build;L=r19b -DMS_CU_OR_LEAN;L1=r19b -DMS_CU_OR_LEAN -DMS_CU_OR_LEAN_NOWHOLE;DS=main a267b81 -DMS_CU_STAMPS;LS=r19b -DMS_CU_OR_LEAN -DMS_CU_STAMPS" \
AB_VARIANTS="D L L1" AB_B=52,64,128,256 AB_N=2 AB_SETTINGS=full,top-p \
AB_B_DT=64,128 AB_N_DT=2 AB_VARIANTS_DT="D L" \
AB_STEPS="ab tests:L ab:bf16 stamps:DS stamps:LS" STAMPS_B=64 BUDGET_S=${BUDGET_S:-270} bash scripts/gpu_run.sh ab
