#!/usr/bin/env bash
# Round 28A, device call 1 (helper A): run from the repo root with carry .devcarry/r28a
export AB_BIN=.devcarry/r28a
export AB_DESC="D=main default (s20/D, built from 749eeac);DS=D's stamps build (s20/DS);A1=-DMS_CU_OR_DYN (piece 256 tokens, 1 by rule);A2=-DMS_CU_OR_DYN -DMS_CU_OR_DYN_PM=2 (piece 512);AS=A1 with -DMS_CU_STAMPS"
date -u
AB_VARIANTS="D A1 A2" AB_B=28,32,48,64 AB_N=2 AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=${B1:-70} bash scripts/gpu_run.sh ab
mv $OUT/bench.txt $OUT/bench_full.txt
AB_VARIANTS="D A1 A2" AB_B=64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab stamps:DS stamps:AS tests:A1" STAMPS_B=64 BUDGET_S=${B2:-200} bash scripts/gpu_run.sh ab
date -u
