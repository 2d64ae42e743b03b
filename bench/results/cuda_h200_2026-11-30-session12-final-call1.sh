#!/bin/bash
# Twelfth session's final call: D = d4181c2 (session start, bench with a caller's workspace: K0 each step),
# MG = c15d894 (merged default, bench with the resource's own workspace), MGS = MG + -DMS_CU_STAMPS (bench only).
AB_BIN=.devcarry/fin AB_DESC="D=d4181c2 session start;MG=c15d894 merged default;MGS=c15d894 + MS_CU_STAMPS" \
AB_VARIANTS="D MG" AB_B=1,4,16,64,256 AB_N=2 AB_SETTINGS=full,top-p AB_VARIANTS_DT="D MG" AB_B_DT=16,64 AB_N_DT=1 \
STAMPS_B=1,64 AB_STEPS="tests:MG san:MG ab ab:bf16 stamps:MGS" BUDGET_S=${CALL_S:-470} bash scripts/gpu_run.sh ab
