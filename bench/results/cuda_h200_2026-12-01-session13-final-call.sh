#!/bin/bash
# Thirteenth session's final call: D = 35cd68b (session start), MG = 4882907 (merged default: TSEL_OR, OR_R18 on),
# MW = 4882907 + -DMS_CU_LITE_EARLY -DMS_CU_K1_EARLY (round 18C's switches), MWS = MW + MS_CU_STAMPS (bench only),
# MWF = MW's bench with FlashInfer 0.7.4 compiled in (scripts/get_flashinfer.sh; -DMSAMPLER_FLASHINFER_INCLUDE).
AB_BIN=.devcarry/fin13 AB_DESC="D=35cd68b session start;MG=4882907 merged default;MW=4882907 + LITE_EARLY K1_EARLY;MWS=MW + MS_CU_STAMPS" \
AB_VARIANTS="D MG MW" AB_B=1,4,16,32,64,128,256 AB_N=2 AB_SETTINGS=full,top-p AB_VARIANTS_DT="D MW" AB_B_DT=16,64,128 AB_N_DT=1 \
STAMPS_B=1,64 AB_STEPS="tests:MW san:MW ab ab:bf16 stamps:MWS" BUDGET_S=265 bash scripts/gpu_run.sh ab
OUT=$OUT/fi FI_BIN=.devcarry/fin13/MWF/ms_bench_cuda BENCH_T=45 bash scripts/gpu_flashinfer.sh --no-baseline \
  --vocab 151936 --batch 1,16,64,256 --shape both --setting both
