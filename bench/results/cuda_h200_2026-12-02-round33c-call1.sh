#!/bin/bash
# Round 33C, call 1 (carried as .devcarry/r33c/call1.sh; run from the repository root with $OUT set).
# D = main's default (.devcarry/s24/D, main 1821d95's kernels); R = r33c -DMS_CU_OR_RFNR=1 (round 28C's per-row count
# only in the ring-less one-read steps, no back-off); S = r33c -DMS_CU_OR_RFNR=1 -DMS_CU_OR_RFST=1 (R, and K4's thread 0
# hands the stats' first 16 bytes to the block through the wait's barrier). Tests (the brief's six) on S and R; A/B full
# setting fp32 V=151936 B=28..128 both shapes (2 runs, alternating), bf16 B=64 (2 runs), top-p alone B=64 (2 runs).
B=.devcarry/r33c
mkdir -p $OUT; T0=$(date +%s)
DESC="D=main 1821d95 default (s24/D);R=r33c -DMS_CU_OR_RFNR=1 (per-row count, ring-less one-read steps, no back-off);S=r33c -DMS_CU_OR_RFNR=1 -DMS_CU_OR_RFST=1 (R + stats via thread 0's wait)"
TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_big_chunks cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_lite"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="tests:S tests:R" AB_TESTS="$TESTS" BUDGET_S=${BT:-70} bash scripts/gpu_run.sh ab > $OUT/tests_run.log 2>&1
echo "tests: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="${VL:-D R S}" AB_B=28,32,48,64,96,128 AB_N=${NR:-2} AB_SETTINGS=full AB_B_DT=64 AB_N_DT=2 \
AB_STEPS="ab ab:bf16" BUDGET_S=${BA:-70} bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="${VL:-D R S}" AB_B=64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=${BP:-30} \
OUT=$OUT/tp bash scripts/gpu_run.sh ab > $OUT/abtp_run.log 2>&1
echo "abtp: $(( $(date +%s) - T0 )) s"
ls -laR $OUT | head -30
