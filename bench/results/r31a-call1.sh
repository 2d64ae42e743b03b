#!/usr/bin/env bash
# Round 31A, device call 1: N's tests, then D/N A/B (alternating, first run of each checks tokens against the CPU).
export AB_BIN=.devcarry/r31a
export AB_DESC="D=main default (f0b09f1 kernels, .devcarry/s22/D);N=r31a -DMS_CU_K1_ROWCUT, the row-wide top-k' cut from K1's warp maxima"
export AB_VARIANTS="D N"
T="cuda_identity_lite cuda_identity_lite_bins cuda_identity_minp_edges cuda_identity_k2_stage cuda_graph_replay_equals_eager cuda_stats_between_steps cuda_identity_many_steps cuda_identity_matrix"
# fp32 full B=1..24 both shapes x3, then bf16 B=1,16 x2
AB_STEPS="tests:N ab ab:bf16" AB_TESTS="$T" AB_B=1,2,4,8,16,24 AB_N=3 AB_B_DT=1,16 AB_N_DT=2 AB_SETTINGS=full BUDGET_S=140 bash scripts/gpu_run.sh ab
# V=262144 B=1,16 full x2
AB_STEPS="ab" AB_V=262144 AB_B=1,16 AB_N=2 AB_SETTINGS=full BUDGET_S=40 bash scripts/gpu_run.sh ab
# control: top-p alone B=16 x2
AB_STEPS="ab" AB_B=16 AB_N=2 AB_SETTINGS=top-p BUDGET_S=40 bash scripts/gpu_run.sh ab
