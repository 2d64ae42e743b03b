#!/bin/bash
# Round 33C, call 2 (carried as .devcarry/r33c/call2.sh; run from the repository root with $OUT set).
# D = main's default (.devcarry/s24/D); R = call 1's R (-DMS_CU_OR_RFNR=1, e27068a); K = r33c -DMS_CU_OR_RFK=1 (R's wait in
# a K4 kernel of its own, ms_cu_k4rf, launched only in the steps with a.orf; every other step runs the default's
# ms_cu_k4<true>). Tests (the brief's six) on K; A/B full setting fp32 V=151936 B=28..128 both shapes (2 runs,
# alternating), bf16 B=64 (2 runs), top-p alone B=64 (2 runs).
B=.devcarry/r33c
mkdir -p $OUT; T0=$(date +%s)
DESC="D=main 1821d95 default (s24/D);R=r33c e27068a -DMS_CU_OR_RFNR=1 (call 1's R);K=r33c -DMS_CU_OR_RFK=1 (R's wait in its own K4 kernel, a.orf steps only)"
TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_big_chunks cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_lite"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="tests:K" AB_TESTS="$TESTS" BUDGET_S=${BT:-45} bash scripts/gpu_run.sh ab > $OUT/tests_run.log 2>&1
echo "tests: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="${VL:-D R K}" AB_B=28,32,48,64,96,128 AB_N=${NR:-2} AB_SETTINGS=full AB_B_DT=64 AB_N_DT=2 \
AB_STEPS="ab ab:bf16" BUDGET_S=${BA:-60} bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
echo "ab: $(( $(date +%s) - T0 )) s"
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="${VL:-D R K}" AB_B=64 AB_N=2 AB_SETTINGS=top-p AB_STEPS="ab" BUDGET_S=${BP:-30} \
OUT=$OUT/tp bash scripts/gpu_run.sh ab > $OUT/abtp_run.log 2>&1
echo "abtp: $(( $(date +%s) - T0 )) s"
ls -laR $OUT | head -30
