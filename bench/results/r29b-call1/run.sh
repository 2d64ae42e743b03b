#!/usr/bin/env bash
# Round 29B, device call 1 (helper B): run from the repo root with carry .devcarry/r29b
set -u
cp .devcarry/r29b/tools/gpu_run.sh scripts/gpu_run.sh # round 29B's gpu_run.sh (AB_ALIAS, AB_ENV)
export AB_BIN=.devcarry/r29b
export AB_ALIAS="Nm=N;N0=N;NI=N;NF=N;NSm=NS;NS0=NS;NSI=NS;NSF=NS"
export AB_ENV="Nm=MS_BENCH_ORDYN=-1;N0=MS_BENCH_ORDYN=0;NI=MS_BENCH_ORDYN=64;NF=MS_BENCH_ORDYN=48;NSm=MS_BENCH_ORDYN=-1;NS0=MS_BENCH_ORDYN=0;NSI=MS_BENCH_ORDYN=64;NSF=MS_BENCH_ORDYN=48"
export AB_DESC="D=main b1272aa default (s21/D);DS=D's stamps build (s21/DS);N=r29b -DMS_CU_OR_DYN -DMS_CU_OR_DYN_RT;NS=N's stamps build;Nm=N at q=-1 (static chunks: D's path, 28A's code compiled);N0=N at q=0 (round 28A: 1 piece by rule, then the cursor);NI=N at q=64 (static interleave: every piece by rule, no atomic);NF=N at q=48 (the first 3/4 of the row's pieces by rule, the rest from the cursor);NSm=NS at q=-1;NS0=NS at q=0;NSI=NS at q=64;NSF=NS at q=48"
date -u
AB_STEPS="stamps:DS stamps:NSm stamps:NSI stamps:NS0 stamps:NSF" STAMPS_B=${SB:-32,64} BUDGET_S=${B1:-70} bash scripts/gpu_run.sh ab
AB_STEPS=ab AB_VARIANTS="D Nm NI N0 NF" AB_B=28,32,48,64,96,128 AB_N=2 AB_SETTINGS=full BUDGET_S=${B2:-100} bash scripts/gpu_run.sh ab
date -u
