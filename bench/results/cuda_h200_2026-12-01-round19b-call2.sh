#!/usr/bin/env bash
# Round 19B, device call 2: M (the whole-step loads only with the ring) through all 16 CUDA tests, then D against M
set -u
md5sum .devcarry/r19b/*/ms_bench_cuda .devcarry/r19b/*/ms_cuda_tests 2>/dev/null | tee "$OUT/build.log"
AB_BIN=.devcarry/r19b \
AB_DESC="D=main a267b81, the lead's build;M=r19b -DMS_CU_OR_LEAN (whole steps with the ring only)" \
AB_VARIANTS="D M" AB_B=52,64,128,256 AB_N=2 AB_SETTINGS=full \
AB_B_DT=64,128 AB_N_DT=2 AB_VARIANTS_DT="D M" \
AB_STEPS="tests:M ab ab:bf16" BUDGET_S=${BUDGET_S:-165} bash scripts/gpu_run.sh ab
