#!/bin/bash
# Twelfth session's second call: the batch sizes the first left out (B=32, 128; bf16 B=128), D against MG.
AB_BIN=.devcarry/fin AB_DESC="D=d4181c2 session start;MG=c15d894 merged default;MGS=c15d894 + MS_CU_STAMPS" \
AB_VARIANTS="D MG" AB_B=32,128 AB_N=2 AB_SETTINGS=full,top-p AB_VARIANTS_DT="D MG" AB_B_DT=128 AB_N_DT=1 \
AB_STEPS="ab ab:bf16" BUDGET_S=${CALL_S:-150} bash scripts/gpu_run.sh ab
