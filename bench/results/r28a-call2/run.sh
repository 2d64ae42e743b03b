#!/usr/bin/env bash
# Round 28A, device call 2 (helper A): run from the repo root with carry .devcarry/r28a
export AB_BIN=.devcarry/r28a
export AB_DESC="D=main default (s20/D, built from 749eeac);B1=-DMS_CU_OR_DYN at 34c456b (piece 256 tokens, 1 by rule; less register pressure);B2=B1 with -DMS_CU_OR_DYN_PM=2 (piece 512)"
date -u
AB_VARIANTS="D B1 B2" AB_B=28,32,48,64 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=${B1:-60} bash scripts/gpu_run.sh ab
mv $OUT/bench.txt $OUT/bench_full.txt
AB_VARIANTS="D B1 B2" AB_B=64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab tests:${TV:-B1}" BUDGET_S=${B2:-170} bash scripts/gpu_run.sh ab
date -u
