#!/bin/bash
# round 27A, call 1: the one-read steps' grid past one wave (W*: host rule, P*: persistent K2or)
export AB_BIN=.devcarry/r27a
export AB_DESC="D=main f499448 default (s19/D);DS=D's stamps build;W=MS_CU_OR_WAVEQ=8 (2 waves; ring by rule);W6=W at q=6 (1.5 waves);W12=W at q=12 (3 waves);W8n=W, ring off;P=-DMS_CU_OR_PERSIST q=8 (persistent K2or);P12=P at q=12;PS=P's stamps build;PSw=PS, persistence off (W's grid)"
chmod +x .devcarry/r27a/*/ms_bench_cuda
S=$(date +%s)
AB_VARIANTS="D W6 W W8n W12 P P12" AB_B=32,48,64,96,128,256 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=${B1:-130} bash scripts/gpu_run.sh ab
AB_VARIANTS="D W6 W W8n W12 P P12" AB_B=64,256 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=${B2:-60} bash scripts/gpu_run.sh ab
STAMPS_B=64 AB_STEPS="stamps:DS stamps:PSw stamps:PS" BUDGET_S=${B3:-45} bash scripts/gpu_run.sh ab
echo "call1 total $(( $(date +%s) - S )) s" | tee -a $OUT/bench.txt
