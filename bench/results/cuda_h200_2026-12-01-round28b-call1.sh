#!/bin/bash
# Round 28B, call 1: the one-read steps' G set directly (MS_BENCH_ORG) against D, full setting, both shapes,
# B=96..256, two alternating runs. D = main 3221ccc's default (.devcarry/s20/D), K = r28b's knob build (no env: D's grid),
# K3/K4/K6/K7 = K with MS_BENCH_ORG=3/4/6/7.
mkdir -p $OUT
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
DESC="D=main 3221ccc default;K=r28b knob build, no env (default grid);K3=K MS_BENCH_ORG=3;K4=K MS_BENCH_ORG=4;K6=K MS_BENCH_ORG=6;K7=K MS_BENCH_ORG=7"
AB_BIN=.devcarry/r28b AB_DESC="$DESC" AB_VARIANTS="D K3 K4 K6 K7" AB_B=96,104,112,120,128,136,160,192,224,256 AB_N=2 \
  AB_SETTINGS=full AB_STEPS="ab" BUDGET_S=${BUDGET_S:-120} bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "done $(date -u +%H:%M:%S)"; ls $OUT
