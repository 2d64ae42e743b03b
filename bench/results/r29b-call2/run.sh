#!/usr/bin/env bash
# Round 29B, device call 2 (helper B): run from the repo root with carry .devcarry/r29b
set -u
cp .devcarry/r29b/tools/gpu_run.sh scripts/gpu_run.sh # round 29B's gpu_run.sh (AB_ALIAS, AB_ENV)
export AB_BIN=.devcarry/r29b
export AB_ALIAS="A56=A;A0=A;AI=A;Ar=A;AS0=AS;ASr=AS;ASI=AS"
export AB_ENV="A56=MS_BENCH_ORDYN=56;A0=MS_BENCH_ORDYN=0;AI=MS_BENCH_ORDYN=64;Ar=MS_BENCH_ORDYN=-1;AS0=MS_BENCH_ORDYN=0;ASr=MS_BENCH_ORDYN=-1;ASI=MS_BENCH_ORDYN=64"
export AB_DESC="D=main b1272aa default (s21/D);DS=D's stamps build (s21/DS);A=r29b -DMS_CU_OR_DYN -DMS_CU_OR_DYN_ALWAYS -DMS_CU_OR_DYN_RTQ=48 (the ring-less K2or runs round 28A's pieces alone; q=48: the first 3/4 of a row's pieces by rule, the rest from the cursor);A56=A at q=56 (7/8 by rule);A0=A at q=0 (round 28A: 1 by rule, then the cursor);AI=A at q=64 (static interleave, no atomic);Ar=A at q=-1 (the ring's K2or, static chunks, at one wave: a control);AS=A's stamps build (q=48);AS0=AS at q=0;ASr=AS at q=-1;ASI=AS at q=64"
date -u
AB_STEPS=ab AB_VARIANTS="D A A56 A0 AI Ar" AB_B=28,32,48,64,96,128 AB_N=2 AB_SETTINGS=full BUDGET_S=${B1:-75} bash scripts/gpu_run.sh ab
mv $OUT/bench.txt $OUT/bench_full.txt
AB_STEPS="ab stamps:DS stamps:AS stamps:AS0 stamps:ASI stamps:ASr" AB_VARIANTS="D A" AB_B=64 AB_N=2 AB_SETTINGS=top-p STAMPS_B=32,64 BUDGET_S=${B2:-40} bash scripts/gpu_run.sh ab
mv $OUT/bench.txt $OUT/bench_topp.txt
AB_STEPS="tests:A" BUDGET_S=${B3:-125} bash scripts/gpu_run.sh ab
date -u
