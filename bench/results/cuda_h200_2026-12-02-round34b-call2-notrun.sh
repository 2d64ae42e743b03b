#!/bin/bash
# Round 34B, a second call prepared but NOT run (this helper's device share was spent by call 1); for the lead if wanted.
# Carried as .devcarry/r34b/call2.sh; run from the repository root with $OUT set; carry [".devcarry/r34b/D",
# ".devcarry/r34b/NX", ".devcarry/r34b/call2.sh"] (the folder whole is past the device's 64 MiB with the tree): D
# (.devcarry/s25/D) and NX (r34b -DMS_CU_OR_SB_BIN=1: ms_cu_obin's branch-free form in the default's staging loop; its
# ms_bench_cuda and ms_cuda_tests), to stay within the device's 64 MiB. Steps: the 6 one-read tests on NX, then A/B fp32
# B=28..128 both shapes (2 runs alternating, D first) and bf16 B=64 (2 runs). ~70 s of command.
B=.devcarry/r34b
DESC="D=main default (s25/D, kernels as 35bf75e);NX=r34b -DMS_CU_OR_SB_BIN=1 (branch-free top-k' bin index in the staging loop)"
AB_BIN=$B AB_DESC="$DESC" AB_STEPS="tests:NX" AB_TESTS="cuda_identity_oneread cuda_identity_ring cuda_identity_big_chunks cuda_oneread_model cuda_graph_replay_equals_eager cuda_stats_between_steps" \
  BUDGET_S=45 bash scripts/gpu_run.sh ab > $OUT/tests_run.log 2>&1
AB_BIN=$B AB_DESC="$DESC" AB_VARIANTS="D NX" AB_B=28,32,48,64,96,128 AB_N=2 AB_SETTINGS=full AB_B_DT=64 AB_N_DT=2 \
  AB_STEPS="ab ab:bf16" BUDGET_S=45 bash scripts/gpu_run.sh ab > $OUT/ab_run.log 2>&1
rm -rf build-gpu*
